"""An import of a name its module does not have, answered with the names the module has in the kernel."""

from __future__ import annotations

import ast
import re

from interp.rules.facts import Facts
from interp.rules.rule import Finding

_CANNOT = re.compile(r"^ImportError: cannot import name '(\w+)' from '([\w.]+)'", re.MULTILINE)
_CLOSEST = ("__import__('difflib').get_close_matches({name!r}, [n for n in dir(__import__('sys').modules[{module!r}]) "
            "if not n.startswith('_')], 5, 0.5)")


def import_name(facts: Facts) -> Finding | None:
    """`from M import X` failed because M has no X: a name misspelt, or one that moved or was removed in the version
    installed (`from sklearn.metrics import mean_absolute_percentage_eror`, `from scipy.stats import pearson`). The
    names closest to X that M has, read from the module the kernel imported: models remember other versions of a
    library, and the kernel's is the one that runs."""
    found = _CANNOT.findall(facts.error)
    if not found:
        return None
    name, module = found[-1]
    answer = facts.evaluate({"closest": _CLOSEST.format(name=name, module=module)}).get("closest", "")
    try:
        closest = ast.literal_eval(answer) if answer else []
    except (ValueError, SyntaxError):
        return None
    if not isinstance(closest, list) or not closest:
        return None
    return Finding({"name": name, "module": module, "names": ", ".join(f"`{n}`" for n in closest)})
