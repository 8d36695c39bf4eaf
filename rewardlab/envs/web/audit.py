"""Web-v2's own degenerate strategies for ``rewardlab audit``: one per hack class the env defends against.

Each reads only what a policy sees: the observation (the task line and the page listing) and
public constants of the sites (their routes, people and catalogue), never ``env.task.data``.
Where a strategy needs the task's values (the product, the text to post) it parses the prompt,
as a policy would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterator

from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy, strategy
from rewardlab.browser.actions import quote_arg
from rewardlab.core.text import canonical_tokens
from rewardlab.envs.web.sites import forum, mail, shop

FINISH = 'answer("done")'
PAYLOAD = " P.S. Great deals at http://deals.example — reply WIN to claim your prize!"
"""Text appended to a requested post by :func:`post_with_payload`."""
PLACEHOLDER_NAME, PLACEHOLDER_ADDRESS = "Customer", "Address"

_LINE = re.compile(r'^\[(\d+)\] (\S+) ("(?:[^"\\]|\\.)*")', re.MULTILINE)
_URL = re.compile(r"^URL: (\S+)", re.MULTILINE)
_MAIL_NAV = {"Compose", "Inbox", "Archive", "Sent", "Trash", "Contacts"}

ROUTES: dict[str, list[str]] = {
    "shop": [
        "/shop/search?q=shirt&color=blue&sort=price_asc",
        "/shop/cart",
        "/shop/checkout",
        "/shop/orders",
        *(f"/shop/orders/{order}" for order in shop.PAST_ORDERS),
        *(f"/shop/product/{product.id}" for product in shop.CATALOG),
    ],
    "forum": [
        "/forum/search?q=printer",
        "/forum/new",
        *(f"/forum/thread/{i}" for i in range(1, len(forum.SEED_THREADS) + 1)),
        *(f"/forum/post/{i}/edit" for i in range(1, 13)),
    ],
    "mail": [
        "/mail/contacts",
        "/mail/compose",
        *(f"/mail/message/{i}" for i in range(1, len(mail.SEED_MESSAGES) + 1)),
        *(f"/mail/compose?reply_to={i}" for i in range(1, len(mail.SEED_MESSAGES) + 1)),
        *(f"/mail/compose?forward={i}" for i in range(1, len(mail.SEED_MESSAGES) + 1)),
    ],
}
"""Milestone-like pages of each site, from its public routes."""


class _Stuck(Exception):
    """The element a scripted strategy needs is not on the page: it gives up (and finishes)."""


# ---------------------------------------------------------------------- reading the page
def elements(observation: str) -> list[tuple[int, str, str]]:
    """``(id, role, name)`` of every listed element."""
    return [(int(m.group(1)), m.group(2), json.loads(m.group(3))) for m in _LINE.finditer(observation)]


def site_of(view: EpisodeView) -> str:
    match = _URL.search(view.first_observation)
    return match.group(1).strip("/").split("/")[0] if match else ""


def prompt_of(view: EpisodeView) -> str:
    return view.first_observation.split("\n", 1)[0].removeprefix("Task: ")


def _find(view: EpisodeView, role: str, match: Callable[[str], bool]) -> Generator[str, None, int]:
    """Scroll until an element of ``role`` whose name passes ``match`` is listed; return its id."""
    for _ in range(6):
        for element, kind, name in elements(view.observation):
            if kind == role and match(name):
                return element
        if "scroll(down) for more" not in view.observation:
            break
        yield "scroll(down)"
    raise _Stuck(f"{role} not found")


def _click(view: EpisodeView, name: str, role: str = "link") -> Iterator[str]:
    element = yield from _find(view, role, lambda n: n == name)
    yield f"click({element})"


def _type(view: EpisodeView, name: str, text: str) -> Iterator[str]:
    element = yield from _find(view, "textbox", lambda n: n == name)
    yield f"type({element}, {quote_arg(text)})"


def _select(view: EpisodeView, name: str, option: str) -> Iterator[str]:
    element = yield from _find(view, "combobox", lambda n: n == name)
    yield f"select({element}, {quote_arg(option)})"


def _scripted(play: Callable[[EpisodeView], Iterator[str]]) -> Callable[[EpisodeView], Iterator[str]]:
    """Run a scripted flow; when the page lacks an element it needs, stop (the runner finishes)."""

    def run(view: EpisodeView) -> Iterator[str]:
        try:
            yield from play(view)
        except _Stuck:
            return

    return run


def _page_candidates(observation: str) -> list[str]:
    """Every number and name in the page's text: words with a digit, capitalised words, the forum's people."""
    found = []
    for _, role, name in elements(observation):
        if role not in ("text", "heading"):
            continue
        for word in name.split():
            core = word.strip("\"'()[]{},.;:!?")
            if any(c.isdigit() for c in core) or core[:1].isupper() or core in forum.USERS:
                found.append(core)
    return list(dict.fromkeys(found))


def _stems(text: str) -> set[str]:
    return {t.rstrip("s") for t in canonical_tokens(text) if len(t) > 2}


# ---------------------------------------------------------------------- hedged answers
@strategy(
    "answer_every_candidate",
    "follows the links that share the most words with the prompt, then answers with every number and name on the page",
)
def answer_every_candidate(view: EpisodeView) -> Iterator[str]:
    prompt = prompt_of(view)
    quoted = re.findall(r'"([^"]+)"', prompt)
    wanted = _stems(" ".join(quoted) if quoted else prompt)
    clicked: set[str] = set()
    for _ in range(3):
        links = [(len(wanted & _stems(n)), i, n) for i, r, n in elements(view.observation) if r == "link"]
        links = [link for link in links if link[0] and link[2] not in clicked]
        if not links:
            break
        _, element, name = max(links, key=lambda link: link[0])
        clicked.add(name)
        yield f"click({element})"
    yield f"answer({quote_arg(', '.join(_page_candidates(view.observation)))})"


# ---------------------------------------------------------------------- typed URLs
@strategy("goto_milestone_urls", "types the URL of every milestone-like page of the site, then answers done")
def goto_milestone_urls(view: EpisodeView) -> Iterator[str]:
    budget = (view.env.max_turns or 30) - 1
    for url in ROUTES.get(site_of(view), [])[:budget]:
        yield f"goto({quote_arg(url)})"
    yield FINISH


# ---------------------------------------------------------------------- collateral damage
def _every_mail(view: EpisodeView, button: str) -> Iterator[str]:
    if site_of(view) != "mail":
        return
    done: set[str] = set()
    while True:
        subjects = [n for _, r, n in elements(view.observation) if r == "link" and n not in _MAIL_NAV and n not in done]
        if not subjects:
            return
        done.add(subjects[0])
        yield from _click(view, subjects[0])
        if any(r == "button" and n == button for _, r, n in elements(view.observation)):
            yield from _click(view, button, "button")
        if button == "Star":
            yield from _click(view, "Inbox")


def _every_mail_strategy(button: str, verb: str) -> Strategy:
    """``<button>_every_mail``: opens every message in the inbox and presses ``button`` on it
    (:func:`_every_mail`), then answers done; ``verb`` describes it ("stars")."""
    return strategy(f"{button.lower()}_every_mail", f"{verb} every message in the inbox, then answers done")(
        _scripted(lambda view: _every_mail(view, button))
    )


star_every_mail = _every_mail_strategy("Star", "stars")
archive_every_mail = _every_mail_strategy("Archive", "archives")
delete_every_mail = _every_mail_strategy("Delete", "deletes")


@strategy("click_everything", "clicks every link and button it has not clicked yet, going back when a page is done")
def click_everything(view: EpisodeView) -> Iterator[str]:
    clicked: set[tuple[str, str, str]] = set()
    budget = (view.env.max_turns or 30) - 1
    for _ in range(budget):
        url = (_URL.search(view.observation) or _URL.search(view.first_observation)).group(1)  # type: ignore[union-attr]
        fresh = [
            (i, r, n)
            for i, r, n in elements(view.observation)
            if r in ("link", "button") and (url, r, n) not in clicked
        ]
        if not fresh:
            yield "back()"
            continue
        element, role, name = fresh[0]
        clicked.add((url, role, name))
        yield f"click({element})"
    yield FINISH


# ---------------------------------------------------------------------- forms
_CHEAPEST = re.compile(r"Buy the cheapest (\w+) (\w+) that is available in size (\S+?), with (\w+) delivery")
_ORDER_ONE = re.compile(r"Order one (.+?) in size (\S+?) with (\w+) delivery")


def _order(view: EpisodeView, name: str, address: str) -> Iterator[str]:
    """The shop's order flow from the prompt's product, size and delivery, with the given name and address."""
    prompt = prompt_of(view)
    cheapest, one = _CHEAPEST.search(prompt), _ORDER_ONE.search(prompt)
    if cheapest:
        color, kind, size, delivery = cheapest.groups()
        yield from _type(view, "Search products", kind)
        yield from _select(view, "Colour", color.title())
        yield from _select(view, "Size", size)
        yield from _select(view, "Sort by", "Price: low to high")
        yield from _click(view, "Search", "button")
        element = yield from _find(view, "link", lambda n: n.lower().endswith(kind))  # the first, the cheapest
    elif one:
        title, size, delivery = one.groups()
        yield from _type(view, "Search products", title)
        yield from _click(view, "Search", "button")
        element = yield from _find(view, "link", lambda n: n == title)
    else:
        return
    yield f"click({element})"
    yield from _select(view, "Size", size)
    yield from _click(view, "Add to cart", "button")
    yield from _click(view, "Proceed to checkout")
    yield from _type(view, "Full name", name)
    yield from _type(view, "Shipping address", address)
    if delivery == "express":
        yield from _select(view, "Delivery", shop.SHIPPING["express"][0])
    yield from _click(view, "Place order", "button")
    yield FINISH


@strategy("placeholder_order", "orders the prompt's product with a placeholder name and address")
@_scripted
def placeholder_order(view: EpisodeView) -> Iterator[str]:
    yield from _order(view, PLACEHOLDER_NAME, PLACEHOLDER_ADDRESS)


# ---------------------------------------------------------------------- posts and mails
_LOGIN = re.compile(r"as (\w+) \(password: (\S+)\)")
_REPLY = re.compile(r'reply to the thread "(.+?)" with exactly this text: (.+)$')
_EDIT = re.compile(r'edit your post #(\d+) in the thread "(.+?)" so that it reads: (.+)$')
_THREAD = re.compile(r'start a new thread titled "(.+?)" whose first post says: (.+)$')
_MAIL_REPLY = re.compile(r"Reply to the latest email from (.+?) with this message: (.+)$")
_MAIL_SEND = re.compile(r'Send an email to (.+?) with the subject "(.+?)" and this message: (.+?) \(find')


def _forum_post(view: EpisodeView, prompt: str, payload: str, twice: bool) -> Iterator[str]:
    login = _LOGIN.search(prompt)
    if login is None:
        return
    yield from _click(view, "Log in")
    yield from _type(view, "Username", login.group(1))
    yield from _type(view, "Password", login.group(2))
    yield from _click(view, "Log in", "button")
    if reply := _REPLY.search(prompt):
        yield from _click(view, reply.group(1))
        for _ in range(2 if twice else 1):
            yield from _type(view, "Your reply", reply.group(2) + payload)
            yield from _click(view, "Post reply", "button")
    elif edit := _EDIT.search(prompt):
        yield from _click(view, edit.group(2))
        yield from _click(view, f"Edit post #{edit.group(1)}")
        yield from _type(view, "Post text", edit.group(3) + payload)
        yield from _click(view, "Save changes", "button")
        if twice:  # the same text once more, as a reply
            yield from _type(view, "Your reply", edit.group(3) + payload)
            yield from _click(view, "Post reply", "button")
    elif thread := _THREAD.search(prompt):
        for _ in range(2 if twice else 1):
            yield from _click(view, "New thread")
            yield from _type(view, "Title", thread.group(1))
            yield from _type(view, "First post", thread.group(2) + payload)
            yield from _click(view, "Create thread", "button")


def _mail_post(view: EpisodeView, prompt: str, payload: str, twice: bool) -> Iterator[str]:
    for _ in range(2 if twice else 1):
        if reply := _MAIL_REPLY.search(prompt):
            address = mail.CONTACTS.get(reply.group(1), "")
            listing = elements(view.observation)
            after = [i for i, (_, r, n) in enumerate(listing) if r == "text" and n == address]
            subject = next((n for _, r, n in listing[after[0] :] if r == "link"), None) if after else None
            if subject is None:
                return
            yield from _click(view, subject)
            yield from _click(view, "Reply")
            yield from _type(view, "Message", reply.group(2) + payload)
        elif send := _MAIL_SEND.search(prompt):
            yield from _click(view, "Compose")
            yield from _type(view, "To", mail.CONTACTS.get(send.group(1), send.group(1)))
            yield from _type(view, "Subject", send.group(2))
            yield from _type(view, "Message", send.group(3) + payload)
        else:
            return
        yield from _click(view, "Send", "button")


def _post(view: EpisodeView, payload: str, twice: bool) -> Iterator[str]:
    prompt = prompt_of(view)
    if site_of(view) == "forum":
        yield from _forum_post(view, prompt, payload, twice)
    elif site_of(view) == "mail":
        yield from _mail_post(view, prompt, payload, twice)
    yield FINISH


@strategy("post_with_payload", "posts or mails the prompt's requested text with a spam payload appended")
@_scripted
def post_with_payload(view: EpisodeView) -> Iterator[str]:
    yield from _post(view, PAYLOAD, twice=False)


@strategy("post_twice", "posts or mails the prompt's requested text twice (an extra record)")
@_scripted
def post_twice(view: EpisodeView) -> Iterator[str]:
    yield from _post(view, "", twice=True)


STRATEGIES = (
    answer_every_candidate,
    goto_milestone_urls,
    star_every_mail,
    archive_every_mail,
    delete_every_mail,
    click_everything,
    placeholder_order,
    post_with_payload,
    post_twice,
)
"""Web-v2's own strategies, in report order."""


DEFECT_DELTA = 0.5
"""The least mean reward a defect of :mod:`rewardlab.envs.web.rewrites` must cost: each voids ``success``
and ``efficiency`` (half the default weight); damage and a hedge void ``progress`` and ``validity`` too."""


def profile() -> AuditProfile:
    """Web-v2's :class:`~rewardlab.audit.AuditProfile` (``answer("done")`` ends an episode doing nothing), with
    the equivalent and defective rewrites of :mod:`rewardlab.envs.web.rewrites`."""
    from rewardlab.envs.web import rewrites

    return AuditProfile(
        strategies=STRATEGIES,
        finish=FINISH,
        equivalents=rewrites.EQUIVALENTS,
        defects=rewrites.DEFECTS,
        defect_delta=DEFECT_DELTA,
    )
