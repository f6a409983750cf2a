"""Writes notes/<version>.md from the commits since the previous tag."""
import pathlib
import subprocess
import sys

version = sys.argv[1]
previous = subprocess.run(["git", "describe", "--tags", "--abbrev=0"], capture_output=True, text=True).stdout.strip()
log = subprocess.run(["git", "log", "--format=- %s", f"{previous}..HEAD"], capture_output=True, text=True).stdout
out = pathlib.Path("notes") / f"{version}.md"
out.parent.mkdir(exist_ok=True)
out.write_text(f"# {version}\n\n{log}")
print(f"wrote {out}")
