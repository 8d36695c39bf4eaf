"""RewardLab/Web-v2: web navigation on the package's own sites, through a fast HTTP client or Chromium."""
