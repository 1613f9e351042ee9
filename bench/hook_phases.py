"""In a new process, how long the hook's keyword answer and its dense side take (DESIGN §10).

Times, in one fresh process (run it several times): settings, the keyword-only search (imports
included: what the hook answers with first), and then the dense side (numpy, onnxruntime and
tokenizer imports, model load, prompt embedding, matrix product). The ratio the hook predicts
the dense side with (``paqad.deliver.dense_cost.DEFAULT_RATIO``) is measured from the process
start, as the hook counts, by ``bench/hook_latency.py --scenarios ratio``.

    for i in 1 2 3 4 5; do python bench/hook_phases.py /tmp/hb-new/project; done
"""

from __future__ import annotations

import sys
import time

T0 = time.monotonic()

from pathlib import Path  # noqa: E402

from paqad.config import load_settings  # noqa: E402
from paqad.project import ProjectPaths  # noqa: E402

PROMPT = "where do we validate the payment token before charging?"


def main() -> None:
    paths = ProjectPaths(Path(sys.argv[1]))
    settings = load_settings(paths)
    t1 = time.monotonic()
    from paqad.deliver import answer
    from paqad.search import search

    search(paths, settings, PROMPT, embedder=None)
    t2 = time.monotonic()
    embedder, _ = answer.configured_embedder(paths, settings)
    response = search(paths, settings, PROMPT, embedder=embedder, deadline=time.monotonic() + 60)
    t3 = time.monotonic()
    before = t2 - T0
    print(f"settings {1000 * (t1 - T0):.0f} ms, keyword answer {1000 * (t2 - t1):.0f} ms (everything before it "
          f"{1000 * before:.0f} ms), dense side {1000 * (t3 - t2):.0f} ms = {(t3 - t2) / before:.1f}x; "
          f"degraded={response.degraded.words if response.degraded else None}")


if __name__ == "__main__":
    main()
