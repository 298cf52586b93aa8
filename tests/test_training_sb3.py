"""Interop: sb3-contrib's MaskablePPO trains on the CandidatePlays single-agent wrapper."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from machiavelli_env.wrappers import GreedyPolicy, SingleAgentEnv  # noqa: E402


def test_maskable_ppo_runs_a_few_thousand_steps_on_candidate_plays():
    import torch

    torch.set_num_threads(1)
    env = SingleAgentEnv("classic", opponents=GreedyPolicy(), candidates=16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = sb3_contrib.MaskablePPO(
            "MultiInputPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0, verbose=0,
            policy_kwargs={"net_arch": [64, 64]}, device="cpu",
        )
        before = [p.detach().clone() for p in model.policy.parameters()]
        model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=5)
    for _ in range(50):
        mask = env.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]  # the masked policy only picks allowed candidates
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()
    after = list(model.policy.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))  # it learned something
    assert all(torch.isfinite(p).all() for p in after)
