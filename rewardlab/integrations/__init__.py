"""Adapters to other libraries, one module each:

- :mod:`rewardlab.integrations.trl`: TRL's ``GRPOTrainer`` (one reward function per component, and
  ``environment_factory`` classes whose methods are the env's own tools); :mod:`rewardlab.integrations.trl_train`
  runs it behind the baselines' ``train(config)`` interface (``kind = "trl"`` of ``rewardlab study``);
- :mod:`rewardlab.integrations.verifiers`: a verifiers v1 taskset (``rewardlab_verifiers``, in ``.venv-np2``);
- :mod:`rewardlab.integrations.skyrl`: SkyRL-Gym ``BaseTextEnv``;
- :mod:`rewardlab.integrations.verl`: verl's agent loop (``AgentLoopBase``, registered ``"rewardlab"``);
- :mod:`rewardlab.integrations.openrlhf`: OpenRLHF's ``AgentInstanceBase``/``AgentExecutorBase``;
- :mod:`rewardlab.integrations.ray`: rollouts on Ray actors.

:mod:`rewardlab.integrations.common` is what they share: the keys every adapter logs (``reward/<component>``,
``score``, ``is_success``, ``infra_error`` ...) and the chat prompt of a reset. Each module imports its library
lazily; import the submodule you need.
"""
