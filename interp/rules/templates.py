"""The rules' templates: prompts/rules/ID.md, or prompts/rules/ID.json for a rule with several ({variant: text}),
looked up by rule id (`ID` or `ID.VARIANT`)."""

from __future__ import annotations

import json
from pathlib import Path
from string import Template


def load(folder: Path, profile: str | None = None) -> dict[str, Template]:
    """Every template under `folder`/rules; with a `profile`, its own files (`folder`/PROFILE/rules) take the place
    of those of the same name."""
    found: dict[str, Template] = {}
    places = [folder / "rules", *([folder / profile / "rules"] if profile else [])]
    for place in places:
        for path in sorted(place.glob("*.md")) if place.is_dir() else []:
            found[path.stem] = Template(path.read_text(encoding="utf-8").strip())
        for path in sorted(place.glob("*.json")) if place.is_dir() else []:
            for variant, text in json.loads(path.read_text(encoding="utf-8")).items():
                found[f"{path.stem}.{variant}"] = Template(text.strip())
    return found
