"""Adapters to other libraries, one module each:

- :mod:`rewardlab.integrations.trl`: TRL's ``GRPOTrainer`` (one reward function per component, and
  ``environment_factory`` classes whose methods are the env's own tools); :mod:`rewardlab.integrations.trl_train`
  runs it behind the baselines' ``train(config)`` interface (``kind = "trl"`` of ``rewardlab study``);
- :mod:`rewardlab.integrations.verifiers`: a verifiers v1 taskset (``rewardlab_verifiers``, in ``.venv-np2``);
- :mod:`rewardlab.integrations.skyrl`: SkyRL-Gym ``BaseTextEnv``;
- :mod:`rewardlab.integrations.verl`: verl's agent loop (``AgentLoopBase``, registered ``"rewardlab"``);
- :mod:`rewardlab.integrations.openrlhf`: OpenRLHF's ``AgentInstanceBase``/``AgentExecutorBase``;
- :mod:`rewardlab.integrations.nemo_gym`: NeMo-Gym's Gymnasium resources server (``GymnasiumServer``).

Rollouts on Ray actors, which the baselines use too, are :mod:`rewardlab.baselines.ray_envs`.

Each is a translation onto :mod:`rewardlab.integrations.session`, the episode-session kernel (resolve the env,
start a task, play turns, log, flag infrastructure faults, close once); every adapter logs the keys of
:func:`rewardlab.core.info.episode_logs` (``reward/<component>``, ``score``, ``is_success``, ``infra_error`` ...)
and opens with the chat of :func:`rewardlab.core.chat.opening_messages`. Each module imports its library lazily;
import the submodule you need.
"""
