"""The test clients answer as VS Code's client does in a trusted workspace (client/src/common/
settings.ts `withTrust`): `trusted: true` put into the server's section, unless the test set
`trusted` itself (an untrusted workspace). The server runs nothing without it."""

SECTION = "alloDataflow"


def with_trust(section: str | None, value):
    """The client's answer for `section`, with the workspace's trust in ours."""
    if section != SECTION:
        return value
    return {"trusted": True, **(value if isinstance(value, dict) else {})}
