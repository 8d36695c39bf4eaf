"""The package's own web sites: a shop, a forum and a webmail client (plus hostile test pages)."""

from __future__ import annotations

import threading

from rewardlab.envs.web.sites.base import Request, Response, Site
from rewardlab.envs.web.sites.forum import ForumSite
from rewardlab.envs.web.sites.lab import LabSite
from rewardlab.envs.web.sites.mail import MailSite
from rewardlab.envs.web.sites.server import SiteServer
from rewardlab.envs.web.sites.shop import ShopSite

SITE_NAMES: tuple[str, ...] = ("shop", "forum", "mail")


def make_sites(stopping: threading.Event | None = None) -> list[Site]:
    """Fresh instances of every site (state at its initial values)."""
    return [ShopSite(), ForumSite(), MailSite(), LabSite(stopping)]


def start_server() -> SiteServer:
    """Serve every site on a new ephemeral port of 127.0.0.1."""
    stopping = threading.Event()
    server = SiteServer(make_sites(stopping), stopping=stopping)
    return server


__all__ = ["SITE_NAMES", "Request", "Response", "Site", "SiteServer", "make_sites", "start_server"]
