"""How long the first data request waits for its imports, with the kernel warmed while the user types and without.

    .venv/bin/python scripts/bench_warm.py [--rounds 3] [--typing 3]

Each round starts a kernel, waits --typing seconds (a person typing the first request), then times the run of
`import pandas as pd` as a request's code would run it; once after Kernel.warm (what the REPL does) and once without
(the baseline), the two orders alternated. Prints the median of each and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from interp.runtime import stack
from interp.runtime.kernel import Kernel


def first_import(warm: bool, typing: float) -> float:
    kernel = Kernel(cwd=tempfile.mkdtemp())
    kernel.start()
    try:
        kernel.wait_ready()
        if warm:
            kernel.warm(stack.WARM)
        time.sleep(typing)
        start = time.perf_counter()
        for _ in kernel.execute("import pandas as pd\nprint(pd.__name__)"):
            pass
        return time.perf_counter() - start
    finally:
        kernel.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--typing", type=float, default=3.0)
    args = ap.parse_args()
    times: dict[bool, list[float]] = {True: [], False: []}
    for round_ in range(args.rounds):
        for warm in (round_ % 2 == 0, round_ % 2 == 1):
            times[warm].append(first_import(warm, args.typing))
    cold, warmed = statistics.median(times[False]), statistics.median(times[True])
    print(f"first `import pandas` after {args.typing:g} s of typing, median of {args.rounds}: "
          f"not warmed {cold:.3f} s, warmed {warmed:.3f} s, ratio {warmed / cold:.2f}")


if __name__ == "__main__":
    main()
