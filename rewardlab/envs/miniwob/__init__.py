"""RewardLab/MiniWoB-v1: the MiniWoB++ pages of the ``miniwob`` package through Web-v2's browser backend."""
