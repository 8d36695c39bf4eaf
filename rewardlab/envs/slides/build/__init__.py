"""Building the Slides briefs: the hand-written scenarios and the generator of ``data/tasks.jsonl``.

Data generation only: the env loads the shipped file (:func:`~rewardlab.envs.slides.tasks.load_tasks`)
and never imports this package.
"""
