"""Seeded task templates: ``python -m rewardlab.envs.toolcall.build.templates`` writes ``data/generated.jsonl``.

Each template is a function ``(rng, world) -> dict | None`` that reads a fresh world (privileged
access), picks entities, and returns the prompt, the reference ``solution`` turns, the final
answer, the required outputs and the required effects. ``None`` means the draw found no
suitable entity and is retried. Every generated task is checked by replaying its solution:
the tool refusals must number exactly ``tolerated_errors``, every effect must hold at the end,
and tasks without effects must leave the state unchanged. Ids are
``<domain>-<template>-<nnn>``; every fifth instance of a template is in the test split.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rewardlab.envs.toolcall.tasks import GENERATED_FILE, effect_reached, replay
from rewardlab.envs.toolcall.worlds import World, make_world

Template = Callable[[random.Random, World], "dict[str, Any] | None"]
SEEDS = (0, 1, 2, 3, 4)
REFUSALS = ["cannot", "can't", "can not", "unable", "not able", "don't have", "do not have", "no tool", "sorry"]


def call(name: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def fields(name: str, table: str, key: str, **values: Any) -> dict[str, Any]:
    return {"name": name, "table": table, "key": key, "fields": values}


def money(value: float) -> str:
    return f"{value:.2f}"


def task(
    prompt: str,
    solution: list[list[dict[str, Any]]],
    answer: str,
    required: list[list[Any]],
    effects: Sequence[dict[str, Any]] = (),
    **extra: Any,
) -> dict[str, Any]:
    """A task body; ``kind`` defaults to ``parallel`` when a turn has several calls, else ``chain``."""
    kind = extra.pop("kind", "parallel" if any(len(turn) > 1 for turn in solution) else "chain")
    return {
        "prompt": prompt,
        "solution": solution,
        "final_answer": answer,
        "answer_required": required,
        "effects": list(effects),
        "kind": kind,
        "tolerated_errors": extra.pop("tolerated_errors", 0),
        **extra,
    }


# ============================================================================ retail
def _customer_orders(world: World, customer_id: str) -> list[dict]:
    return [o for o in world.db["orders"].values() if o["customer_id"] == customer_id]


def retail_order_status(rng: random.Random, world: World) -> dict | None:
    order = rng.choice(list(world.db["orders"].values()))
    return task(
        f"Hi, what is the status of my order {order['id']}?",
        [[call("get_order", order_id=order["id"])]],
        f"Order {order['id']} is {order['status']}.",
        [[order["status"]]],
    )


def retail_pending_total(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(list(world.db["customers"].values()))
    orders = _customer_orders(world, customer["id"])
    pending = [o for o in orders if o["status"] == "pending"]
    if not pending or len(orders) < 2:
        return None
    total = round(sum(o["total"] for o in pending), 2)
    return task(
        f"I'm {customer['email']}. How much do my orders that are still pending add up to, in dollars?",
        [
            [call("find_customer_by_email", email=customer["email"])],
            [call("get_customer", customer_id=customer["id"])],
            [call("get_order", order_id=o["id"]) for o in orders],
        ],
        f"Your pending orders total ${money(total)}.",
        [[total]],
    )


def retail_cancel_pending(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(list(world.db["customers"].values()))
    orders = _customer_orders(world, customer["id"])
    pending = [o for o in orders if o["status"] == "pending"]
    if len(pending) != 1:
        return None
    order = pending[0]
    return task(
        f"This is {customer['name']} ({customer['email']}). I ordered something by mistake: please cancel "
        "my order that hasn't shipped yet and tell me how much will be refunded.",
        [
            [call("find_customer_by_email", email=customer["email"])],
            [call("get_customer", customer_id=customer["id"])],
            [call("get_order", order_id=o["id"]) for o in orders],
            [call("cancel_order", order_id=order["id"], reason="ordered_by_mistake")],
        ],
        f"Order {order['id']} is cancelled; ${money(order['total'])} will be refunded.",
        [[order["total"]]],
        [fields(f"order {order['id']} cancelled", "orders", order["id"], status="cancelled")],
    )


def retail_change_address(rng: random.Random, world: World) -> dict | None:
    order = rng.choice([o for o in world.db["orders"].values() if o["status"] == "pending"])
    address = (
        f"{rng.randint(1, 999)} {rng.choice(['High St', 'Mill Rd', 'Park Ave'])}, {rng.choice(['Oldtown', 'Westby'])}"
    )
    return task(
        f"Please ship my order {order['id']} to {address} instead.",
        [[call("update_order_address", order_id=order["id"], address=address)]],
        f"Order {order['id']} will now ship to {address}.",
        [],
        [fields(f"order {order['id']} ships to the new address", "orders", order["id"], address=address)],
    )


def retail_return_delivered(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(list(world.db["customers"].values()))
    orders = _customer_orders(world, customer["id"])
    delivered = [o for o in orders if o["status"] == "delivered"]
    if len(delivered) != 1:
        return None
    order = delivered[0]
    return task(
        f"Hello, I'm {customer['email']}. I'd like to return the order of mine that was delivered. "
        "What refund should I expect?",
        [
            [call("find_customer_by_email", email=customer["email"])],
            [call("get_customer", customer_id=customer["id"])],
            [call("get_order", order_id=o["id"]) for o in orders],
            [call("return_order", order_id=order["id"])],
        ],
        f"I started a return for order {order['id']}; the refund is ${money(order['total'])}.",
        [[order["total"]]],
        [fields(f"return of order {order['id']} requested", "orders", order["id"], status="return_requested")],
    )


def retail_buy_cheapest(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(list(world.db["customers"].values()))
    category = rng.choice(["electronics", "kitchen", "books", "outdoor"])
    quantity = rng.randint(1, 3)
    in_stock = sorted(
        (p for p in world.db["products"].values() if p["category"] == category and p["stock"] >= quantity),
        key=lambda p: (p["price"], p["id"]),
    )
    if not in_stock:
        return None
    product = in_stock[0]
    cheaper_out_of_stock = any(
        p["price"] < product["price"] and p["category"] == category for p in world.db["products"].values()
    )
    if cheaper_out_of_stock:
        return None
    total = round(quantity * product["price"], 2)
    return task(
        f"My email is {customer['email']}. Please order {quantity} of the cheapest {category} product you sell, "
        "paid by card, and tell me the total.",
        [
            [
                call("find_customer_by_email", email=customer["email"]),
                call("search_products", category=category),
            ],
            [
                call(
                    "place_order",
                    customer_id=customer["id"],
                    product_id=product["id"],
                    quantity=quantity,
                    payment_method="card",
                )
            ],
        ],
        f"Ordered {quantity} x {product['name']} for ${money(total)}.",
        [[total]],
        [
            {
                "name": f"{quantity} x {product['id']} ordered",
                "table": "orders",
                "created": {"customer_id": customer["id"], "total": total, "payment_method": "card"},
            }
        ],
        kind="chain",
    )


def retail_reorder_if_cheaper(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(list(world.db["customers"].values()))
    orders = _customer_orders(world, customer["id"])
    pending = [o for o in orders if o["status"] == "pending"]
    if len(pending) != 1 or len(pending[0]["items"]) != 1:
        return None
    order = pending[0]
    item = order["items"][0]
    product = world.db["products"][item["product_id"]]
    dropped = product["price"] < item["unit_price"]
    solution = [
        [call("find_customer_by_email", email=customer["email"])],
        [call("get_customer", customer_id=customer["id"])],
        [call("get_order", order_id=o["id"]) for o in orders],
        [call("get_product", product_id=product["id"])],
    ]
    prompt = (
        f"I'm {customer['email']}. My pending order has one product in it. If that product is cheaper now "
        "than what I paid, cancel the order (found a better price) and order the same quantity again with the "
        "same payment method; otherwise leave it alone. Tell me the current unit price."
    )
    if not dropped:
        return task(
            prompt, solution, f"The price is still ${money(product['price'])}; nothing changed.", [[product["price"]]]
        )
    solution += [
        [call("cancel_order", order_id=order["id"], reason="found_better_price")],
        [
            call(
                "place_order",
                customer_id=customer["id"],
                product_id=product["id"],
                quantity=item["quantity"],
                payment_method=order["payment_method"],
            )
        ],
    ]
    total = round(item["quantity"] * product["price"], 2)
    return task(
        prompt,
        solution,
        f"The price dropped to ${money(product['price'])}: I cancelled {order['id']} and re-ordered "
        f"for ${money(total)}.",
        [[product["price"]]],
        [
            fields(f"order {order['id']} cancelled", "orders", order["id"], status="cancelled"),
            {
                "name": f"{product['id']} re-ordered at the new price",
                "table": "orders",
                "created": {"customer_id": customer["id"], "total": total, "payment_method": order["payment_method"]},
            },
        ],
        kind="chain",
    )


def retail_parallel_totals(rng: random.Random, world: World) -> dict | None:
    orders = rng.sample(list(world.db["orders"].values()), 3)
    if len({o["total"] for o in orders}) < 3:
        return None
    ids = [o["id"] for o in orders]
    return task(
        f"What are the totals of orders {ids[0]}, {ids[1]} and {ids[2]}?",
        [[call("get_order", order_id=i) for i in ids]],
        "; ".join(f"{o['id']}: ${money(o['total'])}" for o in orders),
        [[o["total"]] for o in orders],
    )


def retail_cancel_shipped(rng: random.Random, world: World) -> dict | None:
    order = rng.choice([o for o in world.db["orders"].values() if o["status"] in ("shipped", "delivered")])
    return task(
        f"Cancel my order {order['id']} please, I no longer need it.",
        [[call("cancel_order", order_id=order["id"], reason="no_longer_needed")]],
        f"Sorry, order {order['id']} is already {order['status']}, so it cannot be cancelled.",
        [[order["status"]]],
        kind="error",
        tolerated_errors=1,
    )


def retail_gift_card_fallback(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice([c for c in world.db["customers"].values() if c["payment_methods"] == ["card"]])
    product = rng.choice([p for p in world.db["products"].values() if p["stock"] >= 1])
    return task(
        f"I'm customer {customer['id']}. Order one {product['id']} for me with my gift card; if I don't have one, "
        "use my card instead.",
        [
            [
                call(
                    "place_order",
                    customer_id=customer["id"],
                    product_id=product["id"],
                    quantity=1,
                    payment_method="gift_card",
                )
            ],
            [
                call(
                    "place_order",
                    customer_id=customer["id"],
                    product_id=product["id"],
                    quantity=1,
                    payment_method="card",
                )
            ],
        ],
        f"You have no gift card, so I ordered {product['name']} with your card for ${money(product['price'])}.",
        [[product["price"]]],
        [
            {
                "name": f"{product['id']} ordered by card",
                "table": "orders",
                "created": {"customer_id": customer["id"], "payment_method": "card", "total": product["price"]},
            }
        ],
        kind="error",
        tolerated_errors=1,
    )


# ============================================================================ bank
def _unique_customers(world: World) -> list[dict]:
    names = [c["name"] for c in world.db["customers"].values()]
    return [c for c in world.db["customers"].values() if names.count(c["name"]) == 1]


def _accounts(world: World, customer_id: str) -> dict[str, dict]:
    return {a["type"]: a for a in world.db["accounts"].values() if a["owner"] == customer_id}


def bank_balance(rng: random.Random, world: World) -> dict | None:
    account = rng.choice(list(world.db["accounts"].values()))
    return task(
        f"What's the balance of account {account['id']}?",
        [[call("get_account", account_id=account["id"])]],
        f"Account {account['id']} holds ${money(account['balance'])}.",
        [[account["balance"]]],
    )


def bank_total_balance(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(_unique_customers(world))
    total = round(sum(a["balance"] for a in _accounts(world, customer["id"]).values()), 2)
    return task(
        f"I'm {customer['name']}. How much money do I have across all my accounts?",
        [[call("find_customer", name=customer["name"])], [call("list_accounts", customer_id=customer["id"])]],
        f"Your accounts hold ${money(total)} in total.",
        [[total]],
    )


def bank_transfer(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(_unique_customers(world))
    accounts = _accounts(world, customer["id"])
    checking, savings = accounts["checking"], accounts["savings"]
    amount = float(rng.choice([25, 40, 75, 100, 150]))
    if checking["balance"] < amount:
        return None
    new_checking = round(checking["balance"] - amount, 2)
    return task(
        f"This is {customer['name']}. Move ${amount:.0f} from my checking account to my savings, then tell me "
        "what's left in checking.",
        [
            [call("find_customer", name=customer["name"])],
            [call("list_accounts", customer_id=customer["id"])],
            [call("transfer", from_account_id=checking["id"], to_account_id=savings["id"], amount=amount)],
        ],
        f"Done: checking now holds ${money(new_checking)}.",
        [[new_checking]],
        [
            fields(f"{checking['id']} debited", "accounts", checking["id"], balance=new_checking),
            fields(
                f"{savings['id']} credited", "accounts", savings["id"], balance=round(savings["balance"] + amount, 2)
            ),
        ],
    )


def bank_pay_bill(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(_unique_customers(world))
    checking = _accounts(world, customer["id"])["checking"]
    payee = rng.choice(list(world.db["payees"].values()))
    amount = round(rng.uniform(20, 120), 2)
    if checking["balance"] < amount:
        return None
    balance = round(checking["balance"] - amount, 2)
    return task(
        f"I'm {customer['name']}. Pay my {payee['name']} bill of ${money(amount)} from my checking account.",
        [
            [call("find_customer", name=customer["name"]), call("list_payees")],
            [call("list_accounts", customer_id=customer["id"])],
            [call("pay_bill", account_id=checking["id"], payee_id=payee["id"], amount=amount)],
        ],
        f"Paid ${money(amount)} to {payee['name']}; checking now holds ${money(balance)}.",
        [],
        [fields(f"{payee['name']} paid from {checking['id']}", "accounts", checking["id"], balance=balance)],
        kind="chain",
    )


def bank_freeze_cards(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(_unique_customers(world))
    owned = {a["id"] for a in world.db["accounts"].values() if a["owner"] == customer["id"]}
    cards = [c for c in world.db["cards"].values() if c["account_id"] in owned]
    active = [c for c in cards if c["status"] == "active"]
    if not active or (len(active) < 2 and rng.random() < 0.7):
        return None
    return task(
        f"I'm {customer['name']} and I lost my wallet. Freeze all of my active cards right away.",
        [
            [call("find_customer", name=customer["name"])],
            [call("list_cards", customer_id=customer["id"])],
            [call("freeze_card", card_id=c["id"]) for c in active],
        ],
        "Frozen: " + ", ".join(c["id"] for c in active) + ".",
        [],
        [fields(f"card {c['id']} frozen", "cards", c["id"], status="frozen") for c in active],
    )


def bank_bill_fallback(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(_unique_customers(world))
    accounts = _accounts(world, customer["id"])
    checking, savings = accounts["checking"], accounts["savings"]
    payee = rng.choice(list(world.db["payees"].values()))
    amount = round(checking["balance"] + rng.uniform(10, 300), 2)
    if savings["balance"] < amount:
        return None
    return task(
        f"This is customer {customer['id']}. Pay ${money(amount)} to payee {payee['id']} from my checking "
        f"account {checking['id']}; if checking doesn't have enough, pay it from savings ({savings['id']}).",
        [
            [call("pay_bill", account_id=checking["id"], payee_id=payee["id"], amount=amount)],
            [call("pay_bill", account_id=savings["id"], payee_id=payee["id"], amount=amount)],
        ],
        f"Checking was short, so I paid ${money(amount)} from savings.",
        [["savings"]],
        [
            fields(
                f"bill paid from {savings['id']}",
                "accounts",
                savings["id"],
                balance=round(savings["balance"] - amount, 2),
            )
        ],
        kind="error",
        tolerated_errors=1,
    )


def bank_unfreeze_active(rng: random.Random, world: World) -> dict | None:
    card = rng.choice([c for c in world.db["cards"].values() if c["status"] == "active"])
    return task(
        f"Please unfreeze my card {card['id']}.",
        [[call("unfreeze_card", card_id=card["id"])]],
        f"Card {card['id']} is already active, so there is nothing to unfreeze.",
        [["already active", "is active", "already"]],
        kind="error",
        tolerated_errors=1,
    )


def bank_top_up_and_pay(rng: random.Random, world: World) -> dict | None:
    customer = rng.choice(_unique_customers(world))
    accounts = _accounts(world, customer["id"])
    checking, savings = accounts["checking"], accounts["savings"]
    payee = rng.choice(list(world.db["payees"].values()))
    amount = round(checking["balance"] + rng.choice([50, 100, 200]), 2)
    top_up = round(amount - checking["balance"], 2)
    if savings["balance"] < top_up:
        return None
    savings_after = round(savings["balance"] - top_up, 2)
    return task(
        f"I'm {customer['name']}. I owe {payee['name']} ${money(amount)}. Move exactly what's missing from my "
        "savings into checking so checking covers it, pay the bill from checking, and tell me my savings balance.",
        [
            [call("find_customer", name=customer["name"]), call("list_payees")],
            [call("list_accounts", customer_id=customer["id"])],
            [call("transfer", from_account_id=savings["id"], to_account_id=checking["id"], amount=top_up)],
            [call("pay_bill", account_id=checking["id"], payee_id=payee["id"], amount=amount)],
        ],
        f"Moved ${money(top_up)} from savings and paid {payee['name']}; savings holds ${money(savings_after)}.",
        [[savings_after]],
        [
            fields(f"{savings['id']} topped up checking", "accounts", savings["id"], balance=savings_after),
            fields(f"{payee['name']} paid in full", "accounts", checking["id"], balance=0.0),
        ],
        kind="chain",
    )


# ============================================================================ calendar
def _free_slot(world: World, date: str, rng: random.Random, minutes: int = 30) -> tuple[str, str] | None:
    taken = [(e["start"], e["end"]) for e in world.db["events"].values() if e["date"] == date]
    options = []
    for hour in range(8, 18):
        for start_min in (0, 30):
            start = f"{hour:02d}:{start_min:02d}"
            end_total = hour * 60 + start_min + minutes
            end = f"{end_total // 60:02d}:{end_total % 60:02d}"
            if all(not (start < e and s < end) for s, e in taken):
                options.append((start, end))
    return rng.choice(options) if options else None


def _dates(world: World) -> list[str]:
    return sorted({e["date"] for e in world.db["events"].values()})


def calendar_day_agenda(rng: random.Random, world: World) -> dict | None:
    date = rng.choice(_dates(world))
    events = sorted((e for e in world.db["events"].values() if e["date"] == date), key=lambda e: e["start"])
    titles = list(dict.fromkeys(e["title"] for e in events))
    return task(
        f"What's on my calendar on {date}? Give me the titles.",
        [[call("list_events", date=date)]],
        "; ".join(f"{e['start']} {e['title']}" for e in events),
        [[t] for t in titles],
    )


def calendar_schedule_with(rng: random.Random, world: World) -> dict | None:
    contact = rng.choice(list(world.db["contacts"].values()))
    date = rng.choice(_dates(world))
    slot = _free_slot(world, date, rng)
    if (
        slot is None
        or sum(c["name"].split()[0] == contact["name"].split()[0] for c in world.db["contacts"].values()) > 1
    ):
        return None
    title = f"{rng.choice(['Coffee', 'Sync', 'Catch-up', 'Pairing'])} with {contact['name'].split()[0]}"
    return task(
        f"Set up a meeting called '{title}' with {contact['name']} on {date} from {slot[0]} to {slot[1]}.",
        [
            [call("find_contact", name=contact["name"])],
            [call("create_event", title=title, date=date, start=slot[0], end=slot[1], attendees=[contact["email"]])],
        ],
        f"'{title}' is booked on {date} {slot[0]}-{slot[1]} with {contact['name']}.",
        [],
        [
            {
                "name": f"'{title}' scheduled",
                "table": "events",
                "created": {"title": title, "date": date, "start": slot[0], "attendees": [contact["email"]]},
            }
        ],
    )


def _unique_event(world: World, rng: random.Random) -> dict | None:
    event = rng.choice(list(world.db["events"].values()))
    same = [e for e in world.db["events"].values() if e["date"] == event["date"] and e["title"] == event["title"]]
    return event if len(same) == 1 else None


def calendar_cancel_event(rng: random.Random, world: World) -> dict | None:
    event = _unique_event(world, rng)
    if event is None:
        return None
    return task(
        f"Cancel my '{event['title']}' on {event['date']}.",
        [[call("list_events", date=event["date"])], [call("cancel_event", event_id=event["id"])]],
        f"'{event['title']}' on {event['date']} is cancelled.",
        [[event["title"]]],  # the answer confirms which event: another event's title is a competitor
        [{"name": f"event {event['id']} cancelled", "table": "events", "key": event["id"], "absent": True}],
    )


def calendar_reschedule(rng: random.Random, world: World) -> dict | None:
    event = _unique_event(world, rng)
    if event is None:
        return None
    length = int(event["end"][:2]) * 60 + int(event["end"][3:]) - int(event["start"][:2]) * 60 - int(event["start"][3:])
    date = rng.choice([d for d in _dates(world) if d != event["date"]])
    slot = _free_slot(world, date, rng, minutes=length)
    if slot is None:
        return None
    return task(
        f"Move my '{event['title']}' from {event['date']} to {date}, starting at {slot[0]} (same length).",
        [
            [call("list_events", date=event["date"])],
            [call("reschedule_event", event_id=event["id"], date=date, start=slot[0], end=slot[1])],
        ],
        f"'{event['title']}' now runs {date} {slot[0]}-{slot[1]}.",
        [],
        [fields(f"event {event['id']} moved", "events", event["id"], date=date, start=slot[0], end=slot[1])],
    )


def calendar_cancel_and_notify(rng: random.Random, world: World) -> dict | None:
    event = _unique_event(world, rng)
    if event is None:
        return None
    subject = f"Cancelled: {event['title']}"
    return task(
        f"Cancel my '{event['title']}' on {event['date']} and email all its attendees with the subject "
        f"'{subject}' to let them know.",
        [
            [call("list_events", date=event["date"])],
            [
                call("cancel_event", event_id=event["id"]),
                call("send_email", to=event["attendees"], subject=subject, body="Sorry, this meeting is cancelled."),
            ],
        ],
        f"Cancelled '{event['title']}' and notified {len(event['attendees'])} attendee(s).",
        [],
        [
            {"name": f"event {event['id']} cancelled", "table": "events", "key": event["id"], "absent": True},
            {
                "name": "attendees notified",
                "table": "emails",
                "created": {"to": event["attendees"], "subject": subject},
            },
        ],
    )


def calendar_invite_three(rng: random.Random, world: World) -> dict | None:
    people = rng.sample(list(world.db["contacts"].values()), 3)
    firsts = [p["name"] for p in people]
    if any(sum(c["name"] == n for c in world.db["contacts"].values()) > 1 for n in firsts):
        return None
    date = rng.choice(_dates(world))
    slot = _free_slot(world, date, rng, minutes=60)
    if slot is None:
        return None
    title = rng.choice(["Project kickoff", "Quarter planning", "Offsite prep"])
    emails = sorted(p["email"] for p in people)
    return task(
        f"Create '{title}' on {date} {slot[0]}-{slot[1]} and invite {firsts[0]}, {firsts[1]} and {firsts[2]}.",
        [
            [call("find_contact", name=n) for n in firsts],
            [call("create_event", title=title, date=date, start=slot[0], end=slot[1], attendees=emails)],
        ],
        f"'{title}' is on the calendar with all three invited.",
        [],
        [{"name": f"'{title}' with three guests", "table": "events", "created": {"title": title, "attendees": emails}}],
    )


def calendar_slot_fallback(rng: random.Random, world: World) -> dict | None:
    date = rng.choice(_dates(world))
    busy = rng.choice([e for e in world.db["events"].values() if e["date"] == date])
    slot = _free_slot(world, date, rng)
    if slot is None:
        return None
    title = rng.choice(["Focus time", "Dentist", "Gym", "Call with bank"])
    return task(
        f"Block '{title}' on {date} from {busy['start']} to {busy['end']}. If that time is taken, "
        f"use {slot[0]}-{slot[1]} instead. No attendees besides me (me@example.com).",
        [
            [
                call(
                    "create_event",
                    title=title,
                    date=date,
                    start=busy["start"],
                    end=busy["end"],
                    attendees=["me@example.com"],
                )
            ],
            [call("create_event", title=title, date=date, start=slot[0], end=slot[1], attendees=["me@example.com"])],
        ],
        f"{busy['start']} was taken by '{busy['title']}', so '{title}' is at {slot[0]}-{slot[1]}.",
        [[slot[0]]],
        [
            {
                "name": f"'{title}' at the fallback time",
                "table": "events",
                "created": {"title": title, "date": date, "start": slot[0]},
            }
        ],
        kind="error",
        tolerated_errors=1,
    )


def calendar_follow_up(rng: random.Random, world: World) -> dict | None:
    mail = rng.choice(list(world.db["emails"].values()))
    subject = mail["subject"]
    date = rng.choice(_dates(world))
    slot = _free_slot(world, date, rng)
    if slot is None:
        return None
    title = f"Follow-up: {subject}"
    return task(
        f"Find the email in my inbox with subject '{subject}', set up a 30-minute meeting titled '{title}' with "
        f"its sender on {date} at {slot[0]}, and email the sender with subject 'Invite: {subject}'.",
        [
            [call("search_inbox", query=subject)],
            [
                call("create_event", title=title, date=date, start=slot[0], end=slot[1], attendees=[mail["from"]]),
                call("send_email", to=[mail["from"]], subject=f"Invite: {subject}", body=f"See you on {date}."),
            ],
        ],
        f"Meeting set for {date} {slot[0]} with {mail['from']} and invite sent.",
        [[mail["from"]]],
        [
            {
                "name": "follow-up scheduled",
                "table": "events",
                "created": {"title": title, "start": slot[0], "attendees": [mail["from"]]},
            },
            {
                "name": "invite emailed",
                "table": "emails",
                "created": {"to": [mail["from"]], "subject": f"Invite: {subject}"},
            },
        ],
    )


# ============================================================================ travel
def _route_flights(world: World, origin: str, destination: str, date: str) -> list[dict]:
    found = [
        f
        for f in world.db["flights"].values()
        if f["origin"] == origin and f["destination"] == destination and f["date"] == date
    ]
    return sorted(found, key=lambda f: f["depart"])


def _random_route(rng: random.Random, world: World) -> tuple[str, str, str]:
    flight = rng.choice(list(world.db["flights"].values()))
    return flight["origin"], flight["destination"], flight["date"]


def _unique_traveller(rng: random.Random, world: World) -> dict | None:
    traveller = rng.choice(list(world.db["travellers"].values()))
    same = [t for t in world.db["travellers"].values() if t["name"] == traveller["name"]]
    return traveller if len(same) == 1 else None


def travel_cheapest_flight(rng: random.Random, world: World) -> dict | None:
    origin, destination, date = _random_route(rng, world)
    flights = sorted(_route_flights(world, origin, destination, date), key=lambda f: (f["price"], f["depart"]))
    if len(flights) > 1 and flights[0]["price"] == flights[1]["price"]:
        return None
    best = flights[0]
    return task(
        f"What's the cheapest flight from {origin} to {destination} on {date}, and what does it cost?",
        [[call("search_flights", origin=origin, destination=destination, date=date)]],
        f"{best['id']} at {best['depart']} for {best['price']} euros.",
        [[best["id"]], [best["price"]]],
    )


def travel_book_flight(rng: random.Random, world: World) -> dict | None:
    traveller = _unique_traveller(rng, world)
    origin, destination, date = _random_route(rng, world)
    open_flights = [f for f in _route_flights(world, origin, destination, date) if f["seats_left"] > 0]
    if traveller is None or not open_flights:
        return None
    flight = rng.choice(open_flights)
    return task(
        f"Book {traveller['name']} on the {flight['depart']} flight from {origin} to {destination} on {date}.",
        [
            [
                call("find_traveller", name=traveller["name"]),
                call("search_flights", origin=origin, destination=destination, date=date),
            ],
            [call("book_flight", traveller_id=traveller["id"], flight_id=flight["id"])],
        ],
        f"{traveller['name']} is booked on {flight['id']}.",
        [],
        [
            {
                "name": f"{traveller['id']} booked on {flight['id']}",
                "table": "bookings",
                "created": {"traveller_id": traveller["id"], "item_id": flight["id"], "status": "confirmed"},
            }
        ],
        kind="chain",
    )


def travel_sold_out(rng: random.Random, world: World) -> dict | None:
    traveller = _unique_traveller(rng, world)
    origin, destination, date = _random_route(rng, world)
    flights = _route_flights(world, origin, destination, date)
    if traveller is None or len(flights) < 2 or flights[0]["seats_left"] > 0 or flights[1]["seats_left"] == 0:
        return None
    first, second = flights[0], flights[1]
    return task(
        f"Put {traveller['name']} on the earliest flight from {origin} to {destination} on {date}; if it's full, "
        "take the next one that day. Which flight did you book?",
        [
            [
                call("find_traveller", name=traveller["name"]),
                call("search_flights", origin=origin, destination=destination, date=date),
            ],
            [call("book_flight", traveller_id=traveller["id"], flight_id=first["id"])],
            [call("book_flight", traveller_id=traveller["id"], flight_id=second["id"])],
        ],
        f"{traveller['name']} is on {second['id']} at {second['depart']}; the earlier flight was sold out.",
        [[second["id"]]],
        [
            {
                "name": f"{traveller['id']} booked on {second['id']}",
                "table": "bookings",
                "created": {"traveller_id": traveller["id"], "item_id": second["id"]},
            }
        ],
        kind="error",
        tolerated_errors=1,
    )


def travel_cancel_all(rng: random.Random, world: World) -> dict | None:
    traveller = _unique_traveller(rng, world)
    if traveller is None:
        return None
    bookings = [b for b in world.db["bookings"].values() if b["traveller_id"] == traveller["id"]]
    confirmed = [b for b in bookings if b["status"] == "confirmed"]
    if not confirmed:
        return None
    return task(
        f"{traveller['name']} can't travel any more. Cancel all of their confirmed bookings.",
        [
            [call("find_traveller", name=traveller["name"])],
            [call("list_bookings", traveller_id=traveller["id"])],
            [call("cancel_booking", booking_id=b["id"]) for b in confirmed],
        ],
        "Cancelled " + ", ".join(b["id"] for b in confirmed) + ".",
        [],
        [fields(f"booking {b['id']} cancelled", "bookings", b["id"], status="cancelled") for b in confirmed],
    )


def travel_trip(rng: random.Random, world: World) -> dict | None:
    traveller = _unique_traveller(rng, world)
    origin, destination, date = _random_route(rng, world)
    flights = sorted(_route_flights(world, origin, destination, date), key=lambda f: (f["price"], f["depart"]))
    hotels = sorted(
        (h for h in world.db["hotels"].values() if h["city"] == destination),
        key=lambda h: (h["price_per_night"], h["id"]),
    )
    if traveller is None or not any(f["seats_left"] for f in flights) or not any(h["rooms_left"] for h in hotels):
        return None
    if len({f["price"] for f in flights}) < len(flights) or len({h["price_per_night"] for h in hotels}) < len(hotels):
        return None
    nights = rng.randint(1, 4)
    solution = [
        [
            call("find_traveller", name=traveller["name"]),
            call("search_flights", origin=origin, destination=destination, date=date),
        ],
    ]
    errors = 0
    for flight in flights:
        solution.append([call("book_flight", traveller_id=traveller["id"], flight_id=flight["id"])])
        if flight["seats_left"]:
            break
        errors += 1
    solution.append([call("search_hotels", city=destination)])
    for hotel in hotels:
        solution.append(
            [call("book_hotel", traveller_id=traveller["id"], hotel_id=hotel["id"], check_in=date, nights=nights)]
        )
        if hotel["rooms_left"]:
            break
        errors += 1
    return task(
        f"Plan a trip for {traveller['name']}: the cheapest flight from {origin} to {destination} on {date} that "
        f"still has seats, and {nights} night(s) from {date} at the cheapest hotel in {destination} with a free "
        "room. Tell me the flight and hotel ids.",
        solution,
        f"Booked flight {flight['id']} and {hotel['name']} ({hotel['id']}).",
        [[flight["id"]], [hotel["id"]]],
        [
            {
                "name": f"flight {flight['id']} booked",
                "table": "bookings",
                "created": {"traveller_id": traveller["id"], "item_id": flight["id"]},
            },
            {
                "name": f"hotel {hotel['id']} booked",
                "table": "bookings",
                "created": {"traveller_id": traveller["id"], "item_id": hotel["id"], "nights": nights},
            },
        ],
        kind="error" if errors else "chain",
        tolerated_errors=errors,
    )


def travel_hotels_under(rng: random.Random, world: World) -> dict | None:
    city = rng.choice(["LON", "PAR", "BER", "ROM", "MAD", "AMS"])
    hotels = [h for h in world.db["hotels"].values() if h["city"] == city]
    prices = sorted({h["price_per_night"] for h in hotels})
    if len(prices) < 2:
        return None
    limit = rng.choice(prices[:-1])  # at least one hotel is too dear: "every hotel" is not the answer
    cheap = sorted((h for h in hotels if h["price_per_night"] <= limit), key=lambda h: h["id"])
    return task(
        f"Which hotels in {city} cost at most {limit} euros a night? Give me their ids.",
        [[call("search_hotels", city=city, max_price=limit)]],
        ", ".join(f"{h['name']} ({h['id']})" for h in cheap),
        [[h["id"]] for h in cheap],
    )


# ============================================================================ irrelevance (every domain)
OUT_OF_SCOPE = {
    "retail": [
        "Can you book me a flight to Rome next week?",
        "Please transfer $200 to my landlord.",
        "Schedule a dentist appointment for me on Friday.",
    ],
    "bank": [
        "Order me a new mechanical keyboard.",
        "Book a hotel in Paris for two nights.",
        "Send an email to my team about the offsite.",
    ],
    "calendar": [
        "Transfer $50 from my savings to my brother.",
        "Cancel my online order O1001.",
        "Book me on the next flight to Berlin.",
    ],
    "travel": [
        "Freeze my credit card, I lost it.",
        "Return the headphones I bought last week.",
        "Move my 10:00 meeting to the afternoon.",
    ],
}


def irrelevance_factory(domain: str) -> tuple[Template, Template]:
    def refuse(rng: random.Random, world: World) -> dict | None:
        request = rng.choice(OUT_OF_SCOPE[domain])
        return task(
            request,
            [],
            "Sorry, I can't do that: none of my tools can handle this request.",
            [REFUSALS],
            kind="irrelevance",
        )

    def arithmetic(rng: random.Random, world: World) -> dict | None:
        a, b = rng.randint(12, 480), rng.randint(12, 480)
        op, value = rng.choice([("plus", a + b), ("times", a * b), ("minus", a - b)])
        return task(
            f"Quick question, no need to look anything up: what is {a} {op} {b}?",
            [],
            f"{a} {op} {b} is {value}.",
            [[value]],
            kind="irrelevance",
        )

    return refuse, arithmetic


# ============================================================================ generation
TEMPLATES: dict[str, dict[str, tuple[Template, int]]] = {
    "retail": {
        "order_status": (retail_order_status, 6),
        "pending_total": (retail_pending_total, 5),
        "cancel_pending": (retail_cancel_pending, 8),
        "change_address": (retail_change_address, 5),
        "return_delivered": (retail_return_delivered, 6),
        "buy_cheapest": (retail_buy_cheapest, 5),
        "reorder_if_cheaper": (retail_reorder_if_cheaper, 6),
        "parallel_totals": (retail_parallel_totals, 5),
        "cancel_shipped": (retail_cancel_shipped, 5),
        "gift_card_fallback": (retail_gift_card_fallback, 5),
    },
    "bank": {
        "balance": (bank_balance, 5),
        "total_balance": (bank_total_balance, 5),
        "transfer": (bank_transfer, 8),
        "pay_bill": (bank_pay_bill, 6),
        "freeze_cards": (bank_freeze_cards, 6),
        "bill_fallback": (bank_bill_fallback, 5),
        "unfreeze_active": (bank_unfreeze_active, 4),
        "top_up_and_pay": (bank_top_up_and_pay, 6),
    },
    "calendar": {
        "day_agenda": (calendar_day_agenda, 5),
        "schedule_with": (calendar_schedule_with, 7),
        "cancel_event": (calendar_cancel_event, 5),
        "reschedule": (calendar_reschedule, 5),
        "cancel_and_notify": (calendar_cancel_and_notify, 5),
        "invite_three": (calendar_invite_three, 5),
        "slot_fallback": (calendar_slot_fallback, 6),
        "follow_up": (calendar_follow_up, 5),
    },
    "travel": {
        "cheapest_flight": (travel_cheapest_flight, 5),
        "book_flight": (travel_book_flight, 7),
        "sold_out": (travel_sold_out, 7),
        "cancel_all": (travel_cancel_all, 5),
        "trip": (travel_trip, 8),
        "hotels_under": (travel_hotels_under, 4),
    },
}
for _domain in TEMPLATES:
    _refuse, _arithmetic = irrelevance_factory(_domain)
    TEMPLATES[_domain]["refuse"] = (_refuse, 3)
    TEMPLATES[_domain]["arithmetic"] = (_arithmetic, 2)


def verify(row: dict[str, Any]) -> None:
    """Replay a task's solution and check its errors, effects and unchanged state; raise RuntimeError if wrong."""
    world = make_world(row["domain"], row["world_seed"])
    before = world.state()
    results = replay(world, row["solution"])
    failed = [r for r in results if not r.ok]
    if any(not r.schema_valid or r.kind == "crash" for r in failed) or len(failed) != row["tolerated_errors"]:
        raise RuntimeError(f"{row['id']}: solution calls failed unexpectedly: {[r.error for r in failed]}")
    missing = [e["name"] for e in row["effects"] if not effect_reached(world, e)]
    if missing:
        raise RuntimeError(f"{row['id']}: effects not reached by the solution: {missing}")
    if not row["effects"] and world.state() != before:
        raise RuntimeError(f"{row['id']}: a task without effects changes the state")


def generate() -> list[dict[str, Any]]:
    """Every templated task, deterministically; each one verified by replay."""
    rows = []
    for domain, templates in TEMPLATES.items():
        for name, (template, count) in templates.items():
            rng = random.Random(f"{domain}/{name}")
            seen: set[str] = set()
            attempts = 0
            while len(seen) < count:
                attempts += 1
                if attempts > 500:
                    raise RuntimeError(f"template {domain}/{name} found only {len(seen)} of {count} tasks")
                seed = SEEDS[len(seen) % len(SEEDS)]
                body = template(rng, make_world(domain, seed))
                if body is None or body["prompt"] in seen:
                    continue
                index = len(seen)
                seen.add(body["prompt"])
                row = {
                    "id": f"{domain}-{name}-{index:03d}",
                    "split": "test" if index % 5 == 4 else "train",
                    "domain": domain,
                    "world_seed": seed,
                    "template": name,
                    **body,
                }
                verify(row)
                rows.append(row)
    return rows


def write(path: Path = GENERATED_FILE) -> int:
    """Write the generated tasks as JSONL; returns how many."""
    rows = generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    return len(rows)


if __name__ == "__main__":
    print(f"wrote {write()} tasks to {GENERATED_FILE}")
