"""Credentials written into project files, cut out of the text before it is indexed.

``.env`` files are never indexed (:mod:`paqad.index.filters`), but keys also sit in files that
are: ``credentials.yaml``, a cloud service account's JSON, a PEM private key pasted into a
fixture, a ``STRIPE_KEY = "sk_live_..."`` in source. Whatever leaves this module is what the
index stores, embeds (a remote provider receives it), shares (team store keys are its hash),
delivers to the agent and prints; so a credential found here never reaches any of them.

Only shapes that are credentials with near certainty are replaced: a private key block, the
documented token formats of the big providers, the password in a URL's ``user:password@``, and a
long random-looking value assigned to a name that says it is secret. Every line is kept (a multi-line key becomes as many lines), so
``path:Lstart-end`` pointers stay true for the live file.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# A PEM/OpenSSH/PGP private key, from its BEGIN line to its END line (or, cut short, the end of
# the text); also inside a JSON string, where the line breaks are written as ``\n``.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?=(?:\\n|\s)*[A-Za-z0-9+/=]{16})"  # a body follows: not code that only names the marker
    r"[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
)

# Token formats the issuers document (literal prefix + alphabet + length), so no code word
# matches. Each is tried only when its prefix occurs in the text (a substring test is ~100x
# cheaper than a regex scan, and most files hold none of them).
_TOKENS = tuple((prefix, re.compile(re.escape(prefix) + body + r"(?![A-Za-z0-9])")) for prefix, body in (
    *((aws, "[0-9A-Z]{16}") for aws in ("AKIA", "ASIA", "ABIA", "ACCA")),  # AWS access key id
    ("sk-ant-", "[A-Za-z0-9_-]{32,}"),  # Anthropic
    ("sk-", "(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}"),  # OpenAI
    *((stripe, "[0-9A-Za-z]{16,}") for stripe in ("sk_live_", "sk_test_", "rk_live_", "rk_test_")),  # Stripe
    *((github, "[A-Za-z0-9]{36,}") for github in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),  # GitHub
    ("github_pat_", "[A-Za-z0-9_]{40,}"),
    ("glpat-", "[A-Za-z0-9_-]{20,}"),  # GitLab
    ("xox", "[abposr]-[A-Za-z0-9-]{10,}"),  # Slack
    ("AIza", "[0-9A-Za-z_-]{35}"),  # Google API key
    ("npm_", "[A-Za-z0-9]{36}"),  # npm
    ("pypi-", "[A-Za-z0-9_-]{50,}"),  # PyPI
))

# ``aws_secret_access_key: wJalr...``, ``"client_secret": "..."``, ``DB_PASSWORD=...``: a name
# saying "secret", then a literal value of 16+ characters holding both letters and digits and no
# spaces, dots or brackets (``token = os.environ["TOKEN"]`` and ``password = get_password()``
# are code, not values). Only lines naming a secret are scanned: values first, then the name
# just before each (a regex scan of every file costs 0.2-0.5 s per MB).
# Between the name and the value may stand a declared type (Rust ``API_KEY: &'static str``,
# TypeScript, Kotlin, Swift and Python ``apiKey: String``, Go ``apiKey string``), then ``=``,
# ``:``, Go's ``:=`` or Ruby/PHP's ``=>``, then a quote (``"``, ``'``, a backtick, triple quotes).
# Seen leaking on a Rust project before: ``pub const API_SECRET_KEY: &str = "..."``.
# ``postgresql://admin:PASSWORD@db:5432/prod``, ``https://bot:TOKEN@git.example.com/x.git``: the
# password of a URL's user info (RFC 3986 §3.2.1: the text between ``user:`` and ``@``, where ``/``
# and ``@`` cannot stand unescaped). A placeholder is kept as written: ``{password}`` (an f-string
# or a template), ``${VAR}``/``$VAR``, ``%s``/``%(pw)s``, ``<password>``, ``***``.
_URL_PASSWORD = re.compile(r"(?<=://)(?P<user>[^\s:/@'\"`]*):(?P<password>[^\s/@'\"`]+)(?=@)")
_PLACEHOLDER_STARTS = ("{", "$", "%", "<", "*")


def _url_password(match: re.Match[str]) -> str:
    password = match.group("password")
    if password.startswith(_PLACEHOLDER_STARTS) or password == REDACTED:
        return match.group(0)
    return f"{match.group('user')}:{REDACTED}"


_VALUE = re.compile(r"[A-Za-z0-9/+_-]{16,}={0,2}")  # base64 padding, not `name=value`
_SECRET_NAME_BEFORE = re.compile(
    r"(?i)(?:secret|password|passwd|api[_-]?key|access[_-]?key|auth[_-]?token|private[_-]?key)"
    r"[A-Za-z0-9_-]{0,40}[\"']?"
    r"(?:\s*:\s*&?(?:'static\s+)?[A-Za-z_][A-Za-z0-9_.]*\??|\s+[A-Za-z_][A-Za-z0-9_]*)?"
    r"\s*(?::=|=>|[:=])\s*(?:\"\"\"|'''|[\"'`])?\Z"
)
_NAME_WINDOW = 80  # characters before a value searched for the name
# Lower-case pieces of those names: a line holding none of them is not scanned at all.
_SECRET_NAME_PARTS = ("secret", "passw", "api_key", "apikey", "api-key", "access_key", "accesskey", "access-key",
                      "auth_token", "authtoken", "auth-token", "private_key", "privatekey", "private-key")
_VALUE_ENDS = frozenset("\"'` \t\r\n,;")


def _keep_lines(match: re.Match[str]) -> str:
    return REDACTED + "\n" * match.group(0).count("\n")


def _token(match: re.Match[str]) -> str:
    before = match.string[match.start() - 1] if match.start() else ""
    return match.group(0) if before.isalnum() else REDACTED


def _assigned_values(text: str) -> str:
    lower = text.lower()
    if len(lower) != len(text):  # a character whose lower case is longer (İ): offsets differ
        return "\n".join(_assigned_in_line(line) for line in text.split("\n"))
    spans: set[tuple[int, int]] = set()  # (start, end) of each line naming a secret
    for name in _SECRET_NAME_PARTS:
        at = lower.find(name)
        while at != -1:
            line_end = text.find("\n", at)
            line_end = len(text) if line_end == -1 else line_end
            spans.add((text.rfind("\n", 0, at) + 1, line_end))
            at = lower.find(name, line_end)
    if not spans:
        return text  # most files
    pieces: list[str] = []
    kept = 0
    for line_start, line_end in sorted(spans):
        pieces += (text[kept:line_start], _assigned_in_line(text[line_start:line_end]))
        kept = line_end
    return "".join(pieces) + text[kept:]


def _assigned_in_line(line: str) -> str:
    pieces: list[str] = []
    kept = 0
    for match in _VALUE.finditer(line):
        value = match.group(0)
        start, end = match.span()
        if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
            continue
        if end < len(line) and line[end] not in _VALUE_ENDS:
            continue  # `key=abc123.method()`: code
        if _SECRET_NAME_BEFORE.search(line, max(0, start - _NAME_WINDOW), start):
            pieces += (line[kept:start], REDACTED)
            kept = end
    return "".join(pieces) + line[kept:] if pieces else line


def redact_credentials(text: str) -> str:
    """``text`` with every credential replaced by ``[redacted]``; same number of lines.

    Cheap on text without credentials (substring tests; only lines naming a secret are scanned); never raises.
    """
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(_keep_lines, text)
    for prefix, pattern in _TOKENS:
        if prefix in text:
            text = pattern.sub(_token, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(_url_password, text)
    return _assigned_values(text)
