"""RewardLab/MiniWoB-v0: the MiniWoB++ pages of the ``miniwob`` package through Web-v0's browser backend."""
