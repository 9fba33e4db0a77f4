"""The client's settings as `settings.parse_settings` reads them: trust closed unless `trusted: true`
was read, any depth read without Python's recursion limit, and `slurm.loginHost` never an ssh option."""

import pytest
from allo_lsp.jobs.slurm import SlurmConfig, argv_for
from allo_lsp.settings import MAX_DEPTH, Settings, Unreadable, parse_settings


def nested(depth: int, leaf) -> dict:
    """`{"a": {"a": ... leaf}}`, `depth` objects deep (built without recursion)."""
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def test_untrusted_until_the_client_says_trusted():
    assert Settings().trusted is False
    assert parse_settings(None)[0].trusted is False  # no such section
    assert parse_settings({})[0].trusted is False  # a section without `trusted`
    assert parse_settings({"trusted": True})[0].trusted is True
    for wrong in ("true", 1, "maybe", [True], {"trusted": True}, None):
        settings, warnings = parse_settings({"trusted": wrong})
        assert settings.trusted is False, wrong
    assert parse_settings({"trusted": "yes"})[1] == ["alloDataflow.trusted: trusted must be true or false; using False"]


@pytest.mark.parametrize("depth", [1_500, 100_000])
def test_a_deep_setting_is_reported_and_the_rest_is_read(depth):
    """1,500 levels raised RecursionError in `_flatten`: the whole answer was dropped, and the
    default trust (then true) stayed, whatever `trusted` said."""
    raw = {"deep": nested(depth, 1), "trusted": False, "timeout": 9, "vitis": {"clockNs": 4}}
    settings, (warning,) = parse_settings(raw)
    assert (settings.trusted, settings.timeout, settings.vitis_clock_ns) == (False, 9, 4)
    assert f"nested deeper than {MAX_DEPTH} levels" in warning and warning.startswith("alloDataflow.deep.a.a")
    assert len(warning) < 300  # the path is not spelled out 100,000 times
    assert parse_settings({**raw, "trusted": True})[0].trusted is True


def test_settings_as_deep_as_the_bound_are_read():
    raw = {"vitis": {"clockNs": 4}, "x": nested(MAX_DEPTH - 1, 1)}
    assert parse_settings(raw) == (Settings(vitis_clock_ns=4), [])


def test_many_bad_values_give_a_bounded_number_of_warnings():
    raw = {f"{'x' * i}": nested(MAX_DEPTH + 1, 0) for i in range(1, 1_000)}
    settings, warnings = parse_settings({**raw, "trusted": True})
    assert settings.trusted is True and len(warnings) <= 11
    assert "989 more" in warnings[-1]


@pytest.mark.parametrize("raw", [5, "settings", [{"trusted": True}], True])
def test_an_answer_that_is_not_an_object_cannot_be_read(raw):
    with pytest.raises(Unreadable, match="must be an object"):
        parse_settings(raw)


@pytest.mark.parametrize("host", ["login1", "me@login1.cluster.example.org", "10.0.0.7", "u_1@fe80::1", "a-b"])
def test_a_login_host_is_a_host_or_user_at_host(host):
    assert parse_settings({"slurm": {"loginHost": host}}) == (Settings(slurm_login_host=host), [])


@pytest.mark.parametrize(
    "host",
    [
        "-oProxyCommand=touch /tmp/pwned",
        "-F/dev/null",
        "me@-oProxyCommand=x",
        "login1 -v",
        "login1\n",
        "login\x00",
        "\tlogin",
        "a@b@c",
        "@login1",
        "me@",
    ],
)
def test_a_login_host_that_ssh_would_read_otherwise_is_refused(host):
    settings, (warning,) = parse_settings({"slurm": {"loginHost": host}})
    assert settings.slurm_login_host == "" and "slurm.loginHost must be a host name or user@host" in warning


def test_the_login_host_comes_after_the_end_of_sshs_options():
    argv = argv_for(SlurmConfig(login_host="login1"), ["scontrol", "-o", "show", "job", "4711"])
    assert argv[argv.index("--") + 1] == "login1" and argv[-1] == "scontrol -o show job 4711"


def test_trust_is_read_from_its_own_key_only():
    """`Trusted` (or `trusted` nested) became `trusted` too: a `.vscode/settings.json` holding
    `alloDataflow.Trusted: true` after the client's `trusted: false` trusted the workspace."""
    for raw in ({"trusted": False, "Trusted": True}, {"Trusted": True}, {"trusted": False, "trusted.": True}):
        assert parse_settings(raw)[0].trusted is False, raw
    assert parse_settings({"Trusted": False, "trusted": True})[0].trusted is True
