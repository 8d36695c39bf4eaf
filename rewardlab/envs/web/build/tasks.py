"""Generating Web-v2's tasks from the sites' seed data by fixed templates (written to ``data/tasks.jsonl``).

Regenerate with ``python -m rewardlab.envs.web.build.tasks`` (deterministic; a test checks that the
shipped file matches :func:`generate_tasks`). The task format is described in :mod:`rewardlab.envs.web.tasks`;
every fourth task of each site is in the test split.
"""

from __future__ import annotations

import random
from typing import Any

from rewardlab.core.tasks import Task, TaskSet
from rewardlab.envs.web.sites import forum, mail, shop
from rewardlab.envs.web.tasks import DATA

SHIP_NAME, SHIP_ADDRESS = "Sam Taylor", "1 Elm St, Springfield"


def _click(name: str, role: str = "link") -> dict[str, str]:
    return {"op": "click", "role": role, "name": name}


def _type(name: str, text: str) -> dict[str, str]:
    return {"op": "type", "role": "textbox", "name": name, "text": text}


def _select(name: str, option: str) -> dict[str, str]:
    return {"op": "select", "role": "combobox", "name": name, "option": option}


def _answer(text: str) -> dict[str, str]:
    return {"op": "answer", "text": text}


def _url(name: str, pattern: str) -> dict[str, str]:
    return {"name": name, "url": pattern}


def _check(milestone: str, site: str, check: str, **args: Any) -> dict[str, Any]:
    return {"name": milestone, "check": [site, check, args]}


def _goal(site: str, goal: str, **args: Any) -> dict[str, list]:
    return {"goal": [site, goal, args]}


def _task(site: str, prompt: str, start: str, success: dict, milestones: list, solution: list) -> dict[str, Any]:
    return {
        "site": site,
        "prompt": prompt,
        "start_url": start,
        "success": success,
        "milestones": milestones,
        "solution": solution,
    }


def _goal_task(
    site: str, prompt: str, goal: str, args: dict[str, Any], milestones: list, reached: str, solution: list
) -> dict[str, Any]:
    """A task, started on the site's home page, whose success is the site's ``goal`` with ``args``: its
    milestones are ``milestones`` then ``reached`` (the check of that same goal), its solution is
    ``solution`` then the answer "done"."""
    return _task(
        site,
        prompt,
        f"/{site}/",
        _goal(site, goal, **args),
        [*milestones, _check(reached, site, goal, **args)],
        [*solution, _answer("done")],
    )


# ---------------------------------------------------------------------- shop
def _shop_search(query: str, color: str = "", size: str = "", sort: str = "") -> list[dict]:
    steps = [_type("Search products", query)]
    if color:
        steps.append(_select("Colour", color.title()))
    if size:
        steps.append(_select("Size", size))
    if sort:
        steps.append(_select("Sort by", sort))
    return steps + [_click("Search", "button")]


def _checkout(express: bool) -> list[dict]:
    steps = [_click("Proceed to checkout"), _type("Full name", SHIP_NAME), _type("Shipping address", SHIP_ADDRESS)]
    if express:
        steps.append(_select("Delivery", shop.SHIPPING["express"][0]))
    return steps + [_click("Place order", "button")]


def _order(product_id: int, size: str, shipping: str) -> dict[str, Any]:
    return {"lines": [[product_id, size, 1]], "shipping": shipping, "name": SHIP_NAME, "address": SHIP_ADDRESS}


def _to_cart_milestones(product: shop.Product, size: str) -> list[dict[str, Any]]:
    """Searched, opened ``product``'s page, put it in the cart in ``size``."""
    return [
        _url("searched", r"^/shop/search\?"),
        _url("opened_product", rf"^/shop/product/{product.id}$"),
        _check("added_to_cart", "shop", "in_cart", product_id=product.id, size=size),
    ]


def _order_task(prompt: str, product: shop.Product, size: str, shipping: str, search: list[dict]) -> dict[str, Any]:
    """Order one ``product`` in ``size`` with ``shipping`` delivery, shipped to :data:`SHIP_NAME` at
    :data:`SHIP_ADDRESS`: found by the ``search`` steps, added to the cart, checked out."""
    return _goal_task(
        "shop",
        prompt,
        "order_placed",
        _order(product.id, size, shipping),
        [*_to_cart_milestones(product, size), _url("reached_checkout", r"^/shop/checkout$")],
        "placed_order",
        search
        + [_click(product.name), _select("Size", size), _click("Add to cart", "button")]
        + _checkout(express=shipping == "express"),
    )


def shop_tasks() -> list[dict[str, Any]]:
    tasks = []
    rng = random.Random(0)
    combos = sorted({(p.color, p.kind, size) for p in shop.CATALOG if p.kind != "cap" for size in p.sizes})
    for color, kind, size in rng.sample(combos, 10):
        product = min(
            (p for p in shop.CATALOG if p.color == color and p.kind == kind and size in p.sizes),
            key=lambda p: (p.price, p.id),
        )
        tasks.append(
            _order_task(
                f"Buy the cheapest {color} {kind} that is available in size {size}, with standard delivery, "
                f'shipped to {SHIP_NAME}, {SHIP_ADDRESS}. Answer "done" when the order is placed.',
                product,
                size,
                "standard",
                _shop_search(kind, color, size, "Price: low to high"),
            )
        )
    clothes = [p for p in shop.CATALOG if p.kind != "cap"]
    for product in rng.sample(clothes, 4):
        size = product.sizes[-1]
        tasks.append(
            _order_task(
                f"Order one {product.name} in size {size} with express delivery, shipped to {SHIP_NAME}, "
                f'{SHIP_ADDRESS}. Answer "done" when the order is placed.',
                product,
                size,
                "express",
                _shop_search(product.name),
            )
        )
    for product in rng.sample(shop.CATALOG, 4):
        size = product.sizes[0]
        quantity = rng.randint(2, 4)
        tasks.append(
            _task(
                "shop",
                f"Put {quantity} of the {product.name} in size {size} into the cart, but do not check out. "
                'Answer "done" when they are in the cart.',
                "/shop/",
                _goal("shop", "cart_holds", product_id=product.id, size=size, quantity=quantity),
                _to_cart_milestones(product, size),
                _shop_search(product.name)
                + [
                    _click(product.name),
                    _select("Size", size),
                    _type("Quantity", str(quantity)),
                    _click("Add to cart", "button"),
                    _answer("done"),
                ],
            )
        )
    for order_id in sorted(shop.PAST_ORDERS):
        total = shop.order_total(shop.PAST_ORDERS[order_id])
        tasks.append(
            _task(
                "shop",
                f"What is the order total of order {order_id}? Answer with the amount.",
                "/shop/",
                {"answer": [shop.money(total), f"{total:.2f}"]},
                [_url("opened_orders", r"^/shop/orders$"), _url("opened_order", rf"^/shop/orders/{order_id}$")],
                [_click("Your orders"), _click(f"Order {order_id}"), _answer(shop.money(total))],
            )
        )
    for color, kind in rng.sample(sorted({(p.color, p.kind) for p in shop.CATALOG}), 3):
        cheapest = min((p for p in shop.CATALOG if p.color == color and p.kind == kind), key=lambda p: (p.price, p.id))
        tasks.append(
            _task(
                "shop",
                f"How much does the cheapest {color} {kind} in the shop cost? Answer with the price.",
                "/shop/",
                {"answer": [shop.money(cheapest.price), f"{cheapest.price:.2f}"]},
                [_url("searched", r"^/shop/search\?"), _url("filtered", rf"^/shop/search\?.*color={color}")],
                _shop_search(kind, color, "", "Price: low to high") + [_answer(shop.money(cheapest.price))],
            )
        )
    return tasks


# ---------------------------------------------------------------------- forum
def _login(user: str) -> list[dict]:
    return [
        _click("Log in"),
        _type("Username", user),
        _type("Password", forum.USERS[user]),
        _click("Log in", "button"),
    ]


def _logged_in_task(
    user: str, request: str, goal: str, args: dict[str, Any], milestones: list, reached: str, steps: list
) -> dict[str, Any]:
    """A forum goal task (:func:`_goal_task`) done as ``user``: the prompt asks to log in with their password
    and ``request``, the milestones start with ``logged_in`` and the solution with the log-in."""
    return _goal_task(
        "forum",
        f"Log in to the forum as {user} (password: {forum.USERS[user]}) and {request}",
        goal,
        args,
        [_check("logged_in", "forum", "logged_in", user=user), *milestones],
        reached,
        _login(user) + steps,
    )


def forum_tasks() -> list[dict[str, Any]]:
    titles = [title for title, _ in forum.SEED_THREADS]
    posts = [
        (t + 1, author, body) for t, (_, thread_posts) in enumerate(forum.SEED_THREADS) for author, body in thread_posts
    ]
    tasks = []
    replies = [
        ("carol", 1, "Friday 14:00 is fine, see you at Lakeside."),
        ("alice", 2, "I reported the E42 error to facilities."),
        ("bob", 3, "The noodle bar gets my vote too."),
        ("alice", 5, "Next time let us automate the rollout."),
        ("carol", 6, "Yes, there are covered racks behind building C."),
        ("bob", 1, "I will bring the projector."),
    ]
    for user, thread_id, text in replies:
        tasks.append(
            _logged_in_task(
                user,
                f'reply to the thread "{titles[thread_id - 1]}" with exactly this text: {text}',
                "reply_posted",
                {"thread_id": thread_id, "author": user, "text": text},
                [_url("opened_thread", rf"^/forum/thread/{thread_id}$")],
                "replied",
                [_click(titles[thread_id - 1]), _type("Your reply", text), _click("Post reply", "button")],
            )
        )
    edits = [
        (2, "I booked the Lakeside room for Friday 15:00."),
        (6, "The noodle bar on Main Street closed, sadly."),
        (8, "What went well in release 2.3?"),
        (10, "Be kind. No spam. No ads."),
    ]
    for post_id, text in edits:
        thread_id, author, _ = posts[post_id - 1]
        tasks.append(
            _logged_in_task(
                author,
                f'edit your post #{post_id} in the thread "{titles[thread_id - 1]}" so that it reads: {text}',
                "post_edited",
                {"post_id": post_id, "text": text},
                [
                    _url("opened_thread", rf"^/forum/thread/{thread_id}$"),
                    _url("opened_editor", rf"^/forum/post/{post_id}/edit$"),
                ],
                "edited",
                [
                    _click(titles[thread_id - 1]),
                    _click(f"Edit post #{post_id}"),
                    _type("Post text", text),
                    _click("Save changes", "button"),
                ],
            )
        )
    new_threads = [
        ("alice", "Coffee machine broken", "The coffee machine on floor 2 leaks water."),
        ("bob", "Parking permits 2024", "New parking permits are available at reception."),
        ("carol", "Book club", "Anyone up for a monthly book club?"),
        ("alice", "Lost umbrella", "I left a blue umbrella in meeting room 4."),
    ]
    for user, title, body in new_threads:
        tasks.append(
            _logged_in_task(
                user,
                f'start a new thread titled "{title}" whose first post says: {body}',
                "thread_created",
                {"author": user, "title": title, "text": body},
                [_url("opened_form", r"^/forum/new$")],
                "created",
                [
                    _click("New thread"),
                    _type("Title", title),
                    _type("First post", body),
                    _click("Create thread", "button"),
                ],
            )
        )
    questions = [
        (
            1,
            'In the forum thread "Team offsite planning", which room did bob book?',
            ["Lakeside", "the Lakeside room"],
            "Lakeside",
            None,
        ),
        (3, 'How many replies does the forum thread "Favourite lunch spots" have?', ["3", "three"], "3", None),
        (
            2,
            "Who started the forum thread about the jammed printer? Answer with the user name.",
            ["bob"],
            "bob",
            "printer",
        ),
        (2, "Which error code does the printer on floor 3 show, according to the forum?", ["E42"], "E42", "printer"),
        (3, "According to the forum, how much is the lunch deal at the soup kitchen?", ["$7", "7"], "$7", None),
        (
            5,
            "According to alice in the release 2.3 retrospective, what took too long?",
            ["the rollout", "rollout"],
            "the rollout",
            None,
        ),
        (4, "Who wrote the first post of the forum rules thread? Answer with the user name.", ["alice"], "alice", None),
    ]
    for thread_id, prompt, accepted, answer, search_for in questions:
        milestones = [_url("opened_thread", rf"^/forum/thread/{thread_id}$")]
        solution = [_click(titles[thread_id - 1]), _answer(answer)]
        if search_for:
            milestones.insert(0, _url("searched", r"^/forum/search\?q="))
            solution = [_click("Search"), _type("Search the forum", search_for), _click("Search", "button")] + solution
        tasks.append(_task("forum", prompt, "/forum/", {"answer": accepted}, milestones, solution))
    return tasks


# ---------------------------------------------------------------------- mail
def mail_tasks() -> list[dict[str, Any]]:
    messages = {i + 1: m for i, m in enumerate(mail.SEED_MESSAGES)}
    names = {email: name for name, email in mail.CONTACTS.items()}
    tasks = []
    for sender, text in [
        ("alice@acme.test", "Thanks, the numbers look good."),
        ("bob@acme.test", "The maintenance window works for us."),
        ("carol@partner.test", "Tuesday at 15:00 in B2 works for me."),
        ("eve@vendor.test", "Thank you for the new price list."),
        ("dana@acme.test", "I will be on the roof terrace at 10:00."),
    ]:
        message_id = max(i for i, m in messages.items() if m[0] == sender)
        subject = messages[message_id][1]
        reply = {"to": sender, "subject": f"Re: {subject}", "body": text, "in_reply_to": message_id}
        tasks.append(
            _goal_task(
                "mail",
                f"Reply to the latest email from {names[sender]} with this message: {text}",
                "sent",
                reply,
                [
                    _url("opened_message", rf"^/mail/message/{message_id}$"),
                    _url("opened_reply", rf"^/mail/compose\?reply_to={message_id}$"),
                ],
                "sent",
                [_click(subject), _click("Reply"), _type("Message", text), _click("Send", "button")],
            )
        )
    for message_id, folder, prompt in [
        (1, "archive", "Archive Alice's first email about the quarterly report draft."),
        (2, "archive", "Archive the email in which Bob asks about lunch on Friday."),
        (5, "archive", "Archive the shipping notification about your parcel."),
        (8, "trash", "Delete the phishing email that asks you to verify your account."),
        (10, "trash", "Delete the email with the new price list from Eve."),
    ]:
        subject = messages[message_id][1]
        button = "Archive" if folder == "archive" else "Delete"
        tasks.append(
            _goal_task(
                "mail",
                prompt,
                "in_folder",
                {"message_id": message_id, "folder": folder},
                [_url("opened_message", rf"^/mail/message/{message_id}$")],
                "moved",
                [_click(subject), _click(button, "button")],
            )
        )
    for message_id, value, prompt in [
        (4, True, "Star Carol's email about the contract renewal."),
        (7, True, "Star the email about the team photo."),
        (3, False, "Remove the star from the email about invoice 7781."),
    ]:
        subject = messages[message_id][1]
        tasks.append(
            _goal_task(
                "mail",
                prompt,
                "starred",
                {"message_id": message_id, "value": value},
                [_url("opened_message", rf"^/mail/message/{message_id}$")],
                "toggled",
                [_click(subject), _click("Star" if value else "Unstar", "button")],
            )
        )
    for name, subject, body in [
        ("Dana Kim", "Team photo", "Can we move the team photo to 11:00?"),
        ("Carol Jensen", "Contract draft", "Please send me the contract draft before Tuesday."),
        ("Eve Laurent", "Invoice question", "Does invoice 7781 include VAT?"),
    ]:
        message = {"to": mail.CONTACTS[name], "subject": subject, "body": body}
        tasks.append(
            _goal_task(
                "mail",
                f'Send an email to {name} with the subject "{subject}" and this message: {body} '
                "(find the address in your contacts).",
                "sent",
                message,
                [_url("opened_contacts", r"^/mail/contacts$"), _url("opened_compose", r"^/mail/compose$")],
                "sent",
                [
                    _click("Contacts"),
                    _click("Compose"),
                    _type("To", message["to"]),
                    _type("Subject", subject),
                    _type("Message", body),
                    _click("Send", "button"),
                ],
            )
        )
    for message_id, name in [(3, "Bob Okafor"), (9, "Dana Kim")]:
        sender, subject, body, _ = messages[message_id]
        email = mail.CONTACTS[name]
        forward = {"to": email, "subject": f"Fwd: {subject}", "body": mail.forward_text(sender, body)}
        tasks.append(
            _goal_task(
                "mail",
                f'Forward the email "{subject}" to {name} (find the address in your contacts).',
                "sent",
                forward,
                [
                    _url("opened_message", rf"^/mail/message/{message_id}$"),
                    _url("opened_forward", rf"^/mail/compose\?forward={message_id}$"),
                ],
                "sent",
                [
                    _click("Contacts"),
                    _click("Inbox"),
                    _click(subject),
                    _click("Forward"),
                    _type("To", email),
                    _click("Send", "button"),
                ],
            )
        )
    for message_id, prompt, accepted in [
        (
            4,
            "When is the contract renewal meeting with Carol? Answer with the day and time.",
            ["Tuesday at 15:00", "Tuesday 15:00", "Tuesday, 15:00"],
        ),
        (5, "What is the tracking number of your parcel?", ["ZX-4471-PQ"]),
        (
            3,
            "How much is invoice 7781? Answer with the amount and currency.",
            ["2,450.00 EUR", "2450.00 EUR", "2450 EUR"],
        ),
        (6, "By how many percent did revenue grow, according to Alice's latest email?", ["12 percent", "12%", "12"]),
    ]:
        subject = messages[message_id][1]
        tasks.append(
            _task(
                "mail",
                prompt,
                "/mail/",
                {"answer": accepted},
                [_url("opened_message", rf"^/mail/message/{message_id}$")],
                [_click(subject), _answer(accepted[0])],
            )
        )
    return tasks


def generate_tasks() -> list[Task]:
    """All tasks with stable ids (``shop-001`` ...); every fourth task of a site is in the test split."""
    tasks = []
    for site, rows in (("shop", shop_tasks()), ("forum", forum_tasks()), ("mail", mail_tasks())):
        for index, row in enumerate(rows):
            split = "test" if index % 4 == 3 else "train"
            tasks.append(TaskSet.task_from_json({"id": f"{site}-{index + 1:03d}", "split": split, **row}))
    return tasks


if __name__ == "__main__":
    DATA.parent.mkdir(exist_ok=True)
    TaskSet(generate_tasks()).to_jsonl(DATA)
    print(f"wrote {len(generate_tasks())} tasks to {DATA}")
