"""Adapters to other libraries: :mod:`rewardlab.integrations.trl` (TRL's GRPOTrainer reward functions and
``environment_factory``) and :mod:`rewardlab.integrations.ray` (rollouts on Ray actors).

Each module imports its library lazily; import the submodule you need.
"""
