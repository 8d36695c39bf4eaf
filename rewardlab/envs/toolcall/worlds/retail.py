"""Retail: customers, products and orders of an online shop.

Tables: ``customers`` (``C001``...), ``products`` (``P001``...), ``orders`` (``O1001``...; new
orders get the next number). Order status moves ``pending -> shipped -> delivered``; only
pending orders can be cancelled or re-addressed, only delivered ones returned.

Fixtures present in every seed (used by hand-written tasks): customer ``C001`` Ada Lovelace
(``ada@example.com``) with pending order ``O1001`` and delivered order ``O1002``.
"""

from __future__ import annotations

import random
from typing import Any

from rewardlab.envs.toolcall.worlds.base import Tables, ToolError, World, enum, integer, number, string, tool, view

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia", "Ken", "Margaret", "Tim"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Perlman", "Thompson"]
STREETS = ["Elm St", "Oak Ave", "Pine Rd", "Maple Dr", "Cedar Ln", "Birch Way"]
CITIES = ["Springfield", "Riverton", "Lakeside", "Hillview", "Fairport"]
CATALOGUE = {
    "electronics": ["USB-C cable", "wireless mouse", "mechanical keyboard", "webcam", "headphones", "phone charger"],
    "kitchen": ["coffee grinder", "chef knife", "kettle", "cutting board", "teapot", "blender"],
    "books": ["cookbook", "novel", "atlas", "poetry collection", "field guide", "dictionary"],
    "outdoor": ["tent", "water bottle", "headlamp", "sleeping bag", "trekking poles", "camp stove"],
}
STATUSES = ["pending", "shipped", "delivered"]
CANCEL_REASONS = ["no_longer_needed", "ordered_by_mistake", "found_better_price"]


class RetailWorld(World):
    """An online shop. Fixture: customer C001 (ada@example.com) with orders O1001 (pending), O1002 (delivered)."""

    domain = "retail"
    description = "You are a customer-service agent of an online shop. Prices are in dollars."
    free_arguments = frozenset({"reason"})

    @classmethod
    def generate(cls, seed: int) -> tuple[Tables, dict[str, int]]:
        rng = random.Random(f"retail-{seed}")
        products: dict[str, dict[str, Any]] = {}
        for category, names in CATALOGUE.items():
            for name in names:
                key = f"P{len(products) + 1:03d}"
                price = round(rng.uniform(5, 150), 2)
                products[key] = {
                    "id": key,
                    "name": name,
                    "category": category,
                    "price": price,
                    "stock": rng.randint(0, 40),
                }
        products["P001"].update(stock=25)
        customers: dict[str, dict[str, Any]] = {}
        for i in range(1, 31):
            key = f"C{i:03d}"
            first, last = (FIRST[0], LAST[0]) if i == 1 else (rng.choice(FIRST), rng.choice(LAST))
            customers[key] = {
                "id": key,
                "name": f"{first} {last}",
                "email": "ada@example.com" if i == 1 else f"{first.lower()}.{last.lower()}{i}@example.com",
                "address": f"{rng.randint(1, 999)} {rng.choice(STREETS)}, {rng.choice(CITIES)}",
                "payment_methods": sorted(["card", "gift_card"] if rng.random() < 0.5 or i == 1 else ["card"]),
            }
        orders: dict[str, dict[str, Any]] = {}
        number_ = 1001
        for customer in customers.values():
            count = 2 if customer["id"] == "C001" else rng.randint(1, 4)
            for j in range(count):
                key = f"O{number_}"
                number_ += 1
                chosen = rng.sample(sorted(products), rng.randint(1, 3))
                # about a third of the orders were placed before a price cut
                paid = {p: round(products[p]["price"] * rng.choice([1.0, 1.0, 1.1, 1.25]), 2) for p in chosen}
                items = [{"product_id": p, "quantity": rng.randint(1, 3), "unit_price": paid[p]} for p in chosen]
                status = ["pending", "delivered"][j] if customer["id"] == "C001" else rng.choice(STATUSES)
                orders[key] = {
                    "id": key,
                    "customer_id": customer["id"],
                    "status": status,
                    "items": items,
                    "total": round(sum(i["quantity"] * i["unit_price"] for i in items), 2),
                    "address": customer["address"],
                    "payment_method": rng.choice(customer["payment_methods"]),
                }
        tables = {"customers": customers, "products": products, "orders": orders}
        return tables, {"orders": number_}

    # ------------------------------------------------------------------ read tools
    @tool("Find a customer by email address.", {"email": string("The customer's email address.")})
    def find_customer_by_email(self, email: str) -> dict[str, Any]:
        for customer in self.db["customers"].values():
            if customer["email"] == email.strip().lower():
                return {"customer_id": customer["id"], "name": customer["name"]}
        raise ToolError(f"no customer with email {email}")

    @tool("Get a customer's details and the ids of their orders.", {"customer_id": string("Customer id, e.g. C001.")})
    def get_customer(self, customer_id: str) -> dict[str, Any]:
        customer = view(self.get("customers", customer_id, "customer"))
        customer["order_ids"] = [o["id"] for o in self.db["orders"].values() if o["customer_id"] == customer_id]
        return customer

    @tool("Get an order: status, items, total, address and payment method.", {"order_id": string("Order id.")})
    def get_order(self, order_id: str) -> dict[str, Any]:
        return view(self.get("orders", order_id, "order"))

    @tool("Get a product's name, category, current price and stock.", {"product_id": string("Product id.")})
    def get_product(self, product_id: str) -> dict[str, Any]:
        return view(self.get("products", product_id, "product"))

    @tool(
        "Search products by category, cheapest first (at most 10 results).",
        {
            "category": enum("Product category.", sorted(CATALOGUE)),
            "max_price": number("Only products at or below this price.", exclusiveMinimum=0),
        },
        required=("category",),
    )
    def search_products(self, category: str, max_price: float | None = None) -> list[dict[str, Any]]:
        found = [
            {"product_id": p["id"], "name": p["name"], "price": p["price"], "in_stock": p["stock"] > 0}
            for p in self.db["products"].values()
            if p["category"] == category and (max_price is None or p["price"] <= max_price)
        ]
        return sorted(found, key=lambda p: (p["price"], p["product_id"]))[:10]

    # ------------------------------------------------------------------ write tools
    @tool(
        "Cancel a pending order; its items go back to stock.",
        {"order_id": string("Order id."), "reason": enum("Why the customer cancels.", CANCEL_REASONS)},
        writes=True,
    )
    def cancel_order(self, order_id: str, reason: str) -> dict[str, Any]:
        order = self.get("orders", order_id, "order")
        if order["status"] != "pending":
            raise ToolError(f"order {order_id} is {order['status']}; only pending orders can be cancelled")
        self.update("orders", order_id, status="cancelled")
        for item in order["items"]:
            stock = self.db["products"][item["product_id"]]["stock"]
            self.update("products", item["product_id"], stock=stock + item["quantity"])
        return {"order_id": order_id, "status": "cancelled", "refund": order["total"], "reason": reason}

    @tool(
        "Change the shipping address of a pending order.",
        {"order_id": string("Order id."), "address": string("The full new address.")},
        writes=True,
    )
    def update_order_address(self, order_id: str, address: str) -> dict[str, Any]:
        order = self.get("orders", order_id, "order")
        if order["status"] != "pending":
            raise ToolError(f"order {order_id} is {order['status']}; only pending orders can change address")
        self.update("orders", order_id, address=address)
        return {"order_id": order_id, "address": address}

    @tool("Request a return of a delivered order.", {"order_id": string("Order id.")}, writes=True)
    def return_order(self, order_id: str) -> dict[str, Any]:
        order = self.get("orders", order_id, "order")
        if order["status"] != "delivered":
            raise ToolError(f"order {order_id} is {order['status']}; only delivered orders can be returned")
        self.update("orders", order_id, status="return_requested")
        return {"order_id": order_id, "status": "return_requested", "refund": order["total"]}

    @tool(
        "Place a new order for a customer, paid with one of their payment methods.",
        {
            "customer_id": string("Customer id."),
            "product_id": string("Product id."),
            "quantity": integer("How many units.", minimum=1, maximum=10),
            "payment_method": enum("One of the customer's payment methods.", ["card", "gift_card"]),
        },
        writes=True,
    )
    def place_order(self, customer_id: str, product_id: str, quantity: int, payment_method: str) -> dict[str, Any]:
        customer = self.get("customers", customer_id, "customer")
        product = self.get("products", product_id, "product")
        if payment_method not in customer["payment_methods"]:
            raise ToolError(f"customer {customer_id} has no {payment_method}; they have {customer['payment_methods']}")
        if product["stock"] < quantity:
            raise ToolError(f"only {product['stock']} units of {product_id} in stock")
        self.update("products", product_id, stock=product["stock"] - quantity)
        total = round(quantity * product["price"], 2)
        items = [{"product_id": product_id, "quantity": quantity, "unit_price": product["price"]}]
        record = {
            "customer_id": customer_id,
            "status": "pending",
            "items": items,
            "total": total,
            "address": customer["address"],
            "payment_method": payment_method,
        }
        order_id = self.insert("orders", record, prefix="O")
        return {"order_id": order_id, "status": "pending", "total": total}
