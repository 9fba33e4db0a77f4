"""The extension's page (VS Code's Extensions view, the Marketplace): the user README, its
picture, the icon, the changelog and the licence, in both built .vsix files; the README names
every command and setting the extension contributes."""

import json
import re
import zipfile

import pytest
from paths import ROOT

PACKAGE = json.loads((ROOT / "package.json").read_text())
USER_README = (ROOT / "client" / "README.md").read_text()


def _contributed_settings() -> list[str]:
    configuration = PACKAGE["contributes"]["configuration"]
    groups = configuration if isinstance(configuration, list) else [configuration]
    return [name for group in groups for name in group["properties"]]


@pytest.mark.parametrize("setting", _contributed_settings())
def test_the_user_readme_names_every_setting(setting):
    assert f"`{setting}`" in USER_README


@pytest.mark.parametrize("command", PACKAGE["contributes"]["commands"], ids=lambda c: c["command"])
def test_the_user_readme_names_every_command(command):
    title = command["title"]
    shown = title if title.startswith("Allo") else f"{command.get('category', 'Allo')}: {title}"
    assert f"| {shown} |" in USER_README


@pytest.mark.parametrize("build", ["universal", "linux-x64"])
def test_each_vsix_carries_its_page(build, vsix):
    path = (
        vsix if build == "universal" else vsix.parent / vsix.name.replace("allo-dataflow-", "allo-dataflow-linux-x64-")
    )
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        readme = archive.read("extension/readme.md").decode()
        manifest = archive.read("extension.vsixmanifest").decode()
    # The user README, not the developers' (68 KB of set-up and test notes).
    assert readme == USER_README
    for image in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", readme):
        assert f"extension/{image}" in names, f"{image}: referenced by the README, not in the .vsix"
    assert f"extension/{PACKAGE['icon']}" in names and "<Icon>" in manifest
    assert {"extension/changelog.md", "extension/LICENSE.txt"} <= names
    assert "Apache License" in archive_text(path, "extension/LICENSE.txt")


def archive_text(path, name: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(name).decode()
