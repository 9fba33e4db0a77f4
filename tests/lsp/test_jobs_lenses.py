"""Where the lenses sit and what they say (issue 26, item 21), over stdio."""

from designs import design, line_of


async def test_region_lenses_start_at_the_decorator(job_editor, tmp_path):
    """VS Code draws a lens above its range's first line: on the `def` it sat between
    `@df.region()` and the `def`."""
    path = design(tmp_path)
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    decorator = line_of(path, "@df.region()") - 1
    assert line_of(path, "def top(") - 1 == decorator + 1
    region_lenses = [lens for lens in await job_editor.lenses(uri) if lens.command.arguments[1] == "top"]
    assert region_lenses and {lens.range.start.line for lens in region_lenses} == {decorator}
