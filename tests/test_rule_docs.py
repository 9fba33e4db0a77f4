"""The rules' pages the package ships (`allo_lsp/docs/rules/`), generated from the rule modules:
one per rule, equal to its docstring, linked from the README's table and from each diagnostic."""

import tomllib
from allo_lsp import rule_docs
from allo_lsp.analysis.rules import RULES
from paths import ROOT

REGENERATE = "regenerate with: .venv/bin/allo-lsp rules --write-docs"


def test_every_rule_has_its_page_and_no_page_is_of_no_rule():
    shipped = {p.name: p.read_text(encoding="utf-8") for p in rule_docs.DOCS.glob("*.md")}
    assert set(shipped) == {f"{r.code}.md" for r in RULES}, REGENERATE
    assert shipped == rule_docs.pages(), REGENERATE


def test_a_page_is_the_rules_docstring():
    rule = next(r for r in RULES if r.code == "ADF011")
    page = rule_docs.page(rule)
    assert page.startswith(f"# ADF011 {rule.name}\n\n{rule.summary}.\n")
    assert "`# noqa: ADF011`" in page and "quick fix" in page and page.endswith(rule.doc + "\n")


def test_the_readme_links_each_code_to_its_page():
    readme = (ROOT / "README.md").read_text()
    for rule in RULES:
        link = f"[{rule.code}](server/allo_lsp/docs/rules/{rule.code}.md)"
        assert link in readme and (ROOT / "server/allo_lsp/docs/rules" / f"{rule.code}.md").is_file()


def test_the_pages_are_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "docs/rules/*.md" in config["tool"]["setuptools"]["package-data"]["allo_lsp"]


def test_href_is_a_file_uri_of_the_page_and_none_for_other_codes():
    assert rule_docs.href("ADF011") == (rule_docs.DOCS / "ADF011.md").as_uri()
    assert rule_docs.href("library-bug") is None
