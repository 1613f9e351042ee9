"""Does a prompt need project retrieval at all? (DESIGN §8.6: the nothing form for those that do not.)

Passages from the index only help a prompt about the project's code. Four kinds of prompt need
none, and get the nothing form:

- **talk**: thanks, agreement, greetings ("lgtm", "sounds good", "hello");
- **session commands**: run/commit/push/undo/continue/try again/summarise what you did;
- **the session's own context**: edits to "the file you just changed", "that variable",
  "your last change", questions about "the error above";
- **self-contained work**: general questions with no tie to this project (what is a closure,
  the git command for X), writing and arithmetic, and transforming text pasted in the prompt
  (convert/format/translate/fix this ...).

Five more kinds are **off-project** (issue 19: the clock and the calendar, arithmetic and unit
conversions, editor/shell/git how-tos, other well-known projects, chat and general knowledge).
For arithmetic and chat the wording decides. For the others it does not alone (a project may
well hold time-zone code or a vim plugin): the index's evidence decides with it: such a prompt gets the nothing form only when at least one
of its content words occurs nowhere in the index (``known_terms``: the words the index holds,
from FTS5's document frequencies), i.e. the project cannot be what it is about. Without an
index to ask, the wording decides.

A prompt that names a file, an identifier (``snake_case``, ``camelCase``, ``A.b``) or the
project ("where is", "in our code", "which file") always needs retrieval. The rules were built
on ``bench/should_skip/dev.txt`` and the built-in eval's should-skip cases, and are measured on
``bench/should_skip/test.txt`` (never used to tune them) and on every query of the ranking
benchmark (none may be skipped): ``bench/should_skip/run.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from paqad.search.analysis import SYMBOL, analyze

_FLAGS = re.IGNORECASE

_TALK = re.compile(
    r"^\W*(thanks?( you)?|thx|ty|cheers|ok(ay)?|k|great|cool|nice( work| one)?|perfect|awesome|excellent|good( job| work)?"
    r"|yes|yep|yeah|no|nope|sure|right|correct|exactly|agreed|lgtm|looks good( to me)?|sounds good|got it|makes sense"
    r"|go ahead|do it|hello|hi|hey|good (morning|afternoon|evening)|are you there|never ?mind)\b[^?]{0,60}$", _FLAGS)
_COMMAND = re.compile(
    r"^\W*(please\s+)?((re)?run|commit|push|pull|rebase|squash|stash|merge|undo|redo|revert|retry|continue|keep going"
    r"|go on|try (that |it |this )?again|stop|wait|pause|resume|summari[sz]e|recap|show me the diff|deploy|build it"
    r"|lint)\b", _FLAGS)
_SESSION_REFERENCE = re.compile(
    r"\b(you (just|already|previously)\b|you('ve| have) (just )?(written|changed|edited|added|created|made|introduced)"
    r"|your (last|previous|latest) (change|edit|commit|answer|message|attempt)|(the|that) (last|previous) (change|edit|step|answer)"
    r"|(the|this|that) (output|error|warning|traceback|message|result|command|conversation) (above|you (just )?got)"
    r"|(the|this|that) (error|warning|output|command)\b[^.?]{0,30}\b(above|just|earlier)|explain the (output|error) above"
    r"|why did (that|this|it) (command |test |build )?fail|the (file|function|class|method) I have open"
    r"|the conversation so far|(what|which) should we work on"
    r"|what does (that|this|the) (error|warning|message|output|exit code) mean)", _FLAGS)
_DEICTIC_EDIT = re.compile(
    r"^\W*(rename|delete|remove|move|revert|undo|sort|reformat|format|indent)\s+(that|this|it|the comment you|those)\b", _FLAGS)
_TRANSFORM = re.compile(
    r"^\W*(please\s+)?(convert|pretty[- ]?print|format|reformat|translate|rewrite|rephrase|fix the (grammar|typo|spelling)"
    r"|proofread|turn (this|it) into|minify|beautify|sort these|calculate|compute|what does this regex)\b", _FLAGS)
_NUMBERS = re.compile(r"\d[\d.,]*(\s*(,|and|\+|-|\*|/|x)\s*\d[\d.,]*)+")
_WRITING = re.compile(
    r"^\W*(please\s+)?(write|draft|compose|tell)\s+(me\s+)?(a|an|some)\s+(short\s+|quick\s+|polite\s+|fun\s+)*"
    r"(haiku|poem|limerick|story|joke|song|email|e-mail|letter|tweet|fact|riddle)\b", _FLAGS)
# "how do I ..." is left out on purpose: users ask how to do things with the project that way.
_GENERAL = re.compile(
    r"^\W*(what('s| is| are| does| do)|explain|why (do|does|is|are)|is it (true|possible)|difference between"
    r"|define|describe)\b", _FLAGS)
_ARITHMETIC = re.compile(r"^\W*(what('s| is)\s+)?[\d\s.,%+*/^()x-]+(\bof\b[\d\s.,]+)?(to the power of \d+)?\s*\??\s*$", _FLAGS)
# A question is about this project when it asks where/which part, or speaks of our code.
_PROJECT = re.compile(
    r"\b(where|which (part|file|module|class|function|component|package)|in (our|this|the) (code|codebase|repo|"
    r"repository|project|app|library|lib|package|module|service)|our (code|app|api|library|project|service|config)"
    r"|this (project|repo|repository|codebase|library|app)|defined|implemented|handled|handles|handle|called|"
    r"configured|wired|registered|set up)\b", _FLAGS)
_TECH_SUBJECT = re.compile(
    r"\b(closure|thread|process|race condition|deadlock|big[- ]o|complexity|binary search|tcp|udp|cap theorem|http|"
    r"status code|regex|git|vim|bash|shell|port|sql|json|yaml|string|list|tuple|dict|array|recursion|monad|mutex|"
    r"semaphore|cache|docker|kubernetes|dns|tls|ssl|rest|graphql|oauth|jwt|utf-8|unicode|python|javascript|"
    r"typescript|java|rust|go|ruby|php|c\+\+)\b", _FLAGS)


# Off-project wording (issue 19), built on bench/offproject/dev.txt; measured on test.txt.
_OFF_PROJECT = {
    "time or date": re.compile(
        r"\b(what time is it|what('s| is) the (current )?(time|date)\b|today'?s date|(what|which) (day|year|month) (is it|is today"
        r"|comes|of the week)|what day is|time ?zone (is|of)\b|what time zone|days? (until|since|left)|weeks? until|daylight saving"
        r"|leap year|sunset|sunrise|weather|rain tomorrow|hours? ahead|time difference|how long ago was|when is (easter|christmas))",
        _FLAGS),
    "arithmetic": re.compile(
        r"(\d[\d.,]*\s*(times|divided by|plus|minus|percent|%|squared)\b|\b(square root|factorial|prime number|in binary"
        r"|in hexadecimal|to the power)\b|\b(solve|average of|round) \d|\bconvert \d|\bhow (many|much) (seconds|minutes|hours"
        r"|days|weeks|bytes|kilobytes|megabytes|is \d)|\d\s*(miles|km|feet|inches|fahrenheit|celsius|dollars?)\b|how many are left)",
        _FLAGS),
    "editor, shell or git how-to": re.compile(
        r"(\b(vim|neovim|emacs|nano|tmux|vscode|vs code|command palette|bashrc|zshrc|cron|tar\.gz|untar|default shell)\b"
        r"|\bgit (log|history|config|branch|blame)\b|\b(in|with|from) (git|the terminal|linux|grep|find|cp)\b|\bon (linux|macos)\b"
        r"|\b(undo|amend|squash|cherry-pick|revert|rebase|stash|rename|delete)\b.{0,40}\b(commits?|push|merge|branch(es)?)\b"
        r"|\bwhat (did i|have i) (work|commit)|i committed|who changed this file|who wrote each line|\bssh into"
        r"|listening on port|clear the terminal|hidden files|environment variable permanently|staged changes)", _FLAGS),
    "another project": re.compile(
        r"\b(react'?s?|vue|angular|django|rails|spring( boot)?|kubernetes|docker(file)?|terraform|kafka|redis|mongodb|postgres"
        r"|sqlite|nginx|webpack|eslint|numpy'?s?|pandas|pytorch|tensorflow|scikit-learn|matplotlib|laravel|svelte|next\.js"
        r"|ansible|rabbitmq|elasticsearch|jvm'?s?|v8|linux kernel'?s?|tokio|sqlalchemy|github actions|gil|garbage collector)\b",
        _FLAGS),
    "chat": re.compile(
        r"(^\W*(hi|hello|hey)\b|how are you|how was your|your favou?rite|who are you|what can you help|are you a (human|bot)"
        r"|what('s| is) your name|how old are you|tell me (a joke|something|a fun fact)|recommend (a|me)|i('m| am) (feeling|bored"
        r"|tired|going)|\bi had a\b|any (tips|advice)|good night|see you|happy (friday|monday)|let's (take|celebrate|talk)"
        r"|can we talk|do you (dream|like)|meaning of (life|the word)|what should i (cook|pack)|give me a riddle|sing me"
        r"|write (me )?a (poem|haiku)|what are you up to|grab a coffee|back from holiday|what do you think about"
        r"|name for my)", _FLAGS),
    "general knowledge": re.compile(
        r"^\W*(who (was|is|wrote|painted|invented|discovered|won)|what('s| is) the (capital|population|currency"
        r"|tallest|largest|longest|speed of light|chemical formula|boiling point|best (way|pizza))|how (tall|deep)\b"
        r"|how far is the (moon|sun)|how many (moons|bones|players|continents|people)|which (country|planet|ocean)"
        r"|why (is the sky|do cats)|how (do|does) (vaccines|airplanes"
        r"|a rainbow)|how is cheese|what (causes|are the main causes|language do)|what is photosynthesis|how do i get a stain"
        r"|what's a good recipe)\b", _FLAGS),
}

_WORDING_DECIDES = frozenset({"arithmetic", "chat"})


def off_project(prompt: str) -> str | None:
    """The off-project kind ``prompt``'s wording says (a key of the table above), or None."""
    return next((kind for kind, pattern in _OFF_PROJECT.items() if pattern.search(prompt)), None)


@dataclass(frozen=True)
class Intent:
    """``needs_retrieval``, and when it is False, ``reason``: which rule said so (for logs and tests)."""

    needs_retrieval: bool
    reason: str = ""


def classify(prompt: str, known_terms: Callable[[Iterable[str]], set[str]] | None = None) -> Intent:
    """Decide whether ``prompt`` needs project retrieval (see the module docstring). Never raises.

    ``known_terms`` (the index's evidence): given content words, those the index holds; an
    off-project prompt is skipped only when one of its words is not held (None: the wording
    decides alone)."""
    intent = _classify_wording(prompt)
    if not intent.needs_retrieval or names_project_code(prompt):
        return intent
    kind = off_project(prompt)
    if kind is None:
        return intent
    words = set(analyze(prompt).words)
    if kind not in _WORDING_DECIDES and known_terms is not None and words and not words - set(known_terms(words)):
        return intent  # every word of it is in this project: let the search and the floor judge
    return Intent(False, kind)


def names_project_code(prompt: str) -> bool:
    """Whether ``prompt`` names an identifier or a path, or speaks of this project's code
    ("in our code", "this repo", "which file"): such a prompt is never off-project."""
    info = analyze(prompt)
    return info.kind == SYMBOL or bool(info.identifiers or info.paths) or bool(_OUR_CODE.search(prompt))


_OUR_CODE = re.compile(
    r"\b(which (part|file|module|class|function|component|package)|in (our|this|the) (code|codebase|repo|repository|project"
    r"|library|package|module)|our (code|app|api|library|project|service|config)|this (project|repo|repository|codebase|library))\b",
    _FLAGS)


def _classify_wording(prompt: str) -> Intent:
    """The wording-only rules (talk, commands, session context, self-contained work)."""
    text = prompt.strip()
    if not text:
        return Intent(False, "empty")
    info = analyze(text)
    if info.kind == SYMBOL:
        return Intent(True)
    # Identifiers inside pasted material ("convert this: result.append(x)") do not tie the
    # prompt to the project; those in the request itself do.
    request = text.split(":", 1)[0] if _TRANSFORM.match(text) else text
    names_code = bool(analyze(request).identifiers or analyze(request).paths)
    if _SESSION_REFERENCE.search(text) or _DEICTIC_EDIT.search(text):
        return Intent(False, "session context")
    if len(text) <= 80 and _TALK.match(text):
        return Intent(False, "talk")
    if len(text) <= 120 and _COMMAND.match(text) and not names_code:
        return Intent(False, "session command")
    if _WRITING.match(text):
        return Intent(False, "writing")
    if _ARITHMETIC.match(text):
        return Intent(False, "arithmetic")
    if _TRANSFORM.match(text) and not names_code and (
            ":" in text or "\n" in text or "'" in text or '"' in text or "this" in text.lower() or _NUMBERS.search(text)):
        return Intent(False, "pasted input")
    if names_code or _PROJECT.search(text):
        return Intent(True)
    if _GENERAL.match(text) and len(text) <= 200 and _TECH_SUBJECT.search(text):
        return Intent(False, "general question")
    return Intent(True)
