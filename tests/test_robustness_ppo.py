"""Checkpoints: metadata is checked against bounds, and tensors against the architecture, before anything is built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from machiavelli_env.agents import ppo  # noqa: E402
from machiavelli_env.agents.ppo import (  # noqa: E402
    CandidatePolicy,
    CheckpointError,
    PolicySpec,
    expected_shapes,
    load_checkpoint,
    save_checkpoint,
)

from machiavelli_env import cli  # noqa: E402

SPEC = PolicySpec(limit=8, hidden=16, cand_hidden=8)


@pytest.fixture
def checkpoint(tmp_path) -> Path:
    torch.manual_seed(0)
    return save_checkpoint(CandidatePolicy(SPEC), tmp_path / "m.safetensors")


@pytest.fixture
def nothing_built(monkeypatch):
    """Fail the test if a network is built or a tensor is read from a safetensors file."""
    def no_network(self, spec):
        raise AssertionError(f"a network was built for {spec}")

    monkeypatch.setattr(CandidatePolicy, "__init__", no_network)


def _side(checkpoint: Path, edit) -> None:
    side = checkpoint.with_suffix(".json")
    meta = json.loads(side.read_text())
    edit(meta)
    side.write_text(json.dumps(meta))


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["policy"].update(hidden=10**12), "hidden must be an integer in 1..4096"),
    (lambda m: m["policy"].update(limit=10**12), "limit must be an integer in 1..1024"),
    (lambda m: m["policy"].update(cand_hidden=0), "cand_hidden must be an integer in 1..4096"),
    (lambda m: m["policy"].update(hidden="256"), "hidden must be an integer"),
    (lambda m: m["policy"].update(hidden=True), "hidden must be an integer"),
    (lambda m: m["policy"].update(hidden=256.0), "hidden must be an integer"),
    (lambda m: m["policy"].update(lookahead=1), "lookahead must be true or false"),
    (lambda m: m["policy"].update(colour=1), "unknown policy settings: colour"),
    (lambda m: m.update(policy=[1, 2]), "policy settings must be an object"),
    (lambda m: m.update(version="1"), "format version '1'"),
    (lambda m: m.update(version=True), "format version True"),
    (lambda m: m.update(format="other"), "not a machiavelli PPO checkpoint"),
    (lambda m: m["policy"].update(hidden=3000), "tensor state_net.0.weight has shape (16, 877), the architecture "
                                                "needs (3000, 877)"),
])
def test_bad_metadata_is_rejected_before_anything_is_built(checkpoint, nothing_built, edit, message):
    _side(checkpoint, edit)
    with pytest.raises(CheckpointError, match=None) as exc:
        load_checkpoint(checkpoint)
    assert message in str(exc.value) and str(checkpoint) in str(exc.value)


@pytest.mark.parametrize("text, message", [
    ('{"format": "machiavelli-ppo", "version": NaN}', "NaN"),
    ("[" * 200 + "]" * 200, "nested deeper"),
    (b"\xff\xfe{}", "not UTF-8"),
    (" " * (ppo.MAX_META_BYTES + 1), "larger than 1024 KiB"),
])
def test_side_files_that_are_not_strict_json_are_rejected(checkpoint, nothing_built, text, message):
    side = checkpoint.with_suffix(".json")
    side.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(CheckpointError, match=None) as exc:
        load_checkpoint(checkpoint)
    assert message in str(exc.value)


def test_the_header_copy_is_checked_too(checkpoint, nothing_built):
    checkpoint.with_suffix(".json").unlink()
    from safetensors.torch import load_file, save_file

    meta = {"format": "machiavelli-ppo", "version": 1, "policy": {**SPEC.to_dict(), "hidden": 10**9}}
    save_file(load_file(str(checkpoint)), str(checkpoint), metadata={"machiavelli": json.dumps(meta)})
    with pytest.raises(CheckpointError, match="hidden must be an integer in 1..4096"):
        load_checkpoint(checkpoint)


def test_training_checkpoints_are_checked_before_building(tmp_path, nothing_built):
    path = tmp_path / "checkpoint.pt"
    weights = {k: torch.zeros(v) for k, v in expected_shapes(SPEC).items()}
    meta = {"format": "machiavelli-ppo", "version": 1, "policy": {**SPEC.to_dict(), "limit": 10**12}}
    torch.save({"model": weights, "meta": meta}, path)
    with pytest.raises(CheckpointError, match="limit must be an integer in 1..1024"):
        load_checkpoint(path)
    meta["policy"]["limit"] = 8
    meta["policy"]["hidden"] = 17
    torch.save({"model": weights, "meta": meta}, path)
    with pytest.raises(CheckpointError, match=r"tensor state_net.0.weight has shape \(16, 877\)"):
        load_checkpoint(path)


def test_expected_shapes_are_the_networks():
    for spec in (SPEC, PolicySpec(), PolicySpec(hidden=5, cand_hidden=3, lookahead=True)):
        assert {k: tuple(v.shape) for k, v in CandidatePolicy(spec).state_dict().items()} == expected_shapes(spec)


def test_good_checkpoints_still_load(checkpoint):
    policy, meta = load_checkpoint(checkpoint)
    assert policy.spec == SPEC and meta["policy"] == SPEC.to_dict()


def test_a_bad_ppo_path_is_a_usage_error(tmp_path, capsys, checkpoint):
    _side(checkpoint, lambda m: m["policy"].update(hidden=10**12))
    for spec in (f"ppo:{checkpoint}", f"ppo:{tmp_path / 'none.safetensors'}"):
        rc = cli.main(["eval", "--agents", f"{spec},greedy", "--games", "1"])
        err = capsys.readouterr().err
        assert rc == 2 and err.startswith("machiavelli eval: error: ") and err.count("\n") == 1, err
