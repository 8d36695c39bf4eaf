"""Banking: customers, accounts, cards, payees and transactions.

Tables: ``customers`` (``U01``...), ``accounts`` (``A101``...; one checking and one savings each),
``cards`` (``K01``...), ``payees`` (``Y01``...), ``transactions`` (new ones ``T1``, ``T2``...).
Amounts are dollars with cents; a transfer or bill payment larger than the balance is refused.

Fixtures present in every seed: customer ``U01`` Ada Lovelace with checking ``A101`` (balance
120.00), savings ``A102`` (balance 5000.00) and active card ``K01``; payee ``Y01`` City Power.
"""

from __future__ import annotations

import random
from typing import Any

from rewardlab.envs.toolcall.worlds.base import Tables, ToolError, World, integer, number, string, tool, view
from rewardlab.envs.toolcall.worlds.retail import FIRST, LAST

PAYEES = ["City Power", "Metro Water", "FastNet Internet", "Green Gas", "Mobile One", "Home Insurance Co"]
AMOUNT = number("Amount in dollars; rounded to cents.", minimum=0.01, maximum=1_000_000)


class BankWorld(World):
    """A retail bank. Fixture: U01 Ada Lovelace, checking A101 (120.00), savings A102 (5000.00), card K01."""

    domain = "bank"
    description = "You are a banking assistant. Amounts are in dollars."

    @classmethod
    def generate(cls, seed: int) -> tuple[Tables, dict[str, int]]:
        rng = random.Random(f"bank-{seed}")
        customers: dict[str, dict[str, Any]] = {}
        accounts: dict[str, dict[str, Any]] = {}
        cards: dict[str, dict[str, Any]] = {}
        for i in range(1, 21):
            key = f"U{i:02d}"
            name = "Ada Lovelace" if i == 1 else f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            customers[key] = {"id": key, "name": name}
            for offset, kind in ((1, "checking"), (2, "savings")):
                account = f"A{100 + 2 * (i - 1) + offset}"
                balance = round(rng.uniform(50, 3000) if kind == "checking" else rng.uniform(500, 20000), 2)
                accounts[account] = {"id": account, "owner": key, "type": kind, "balance": balance}
            for _ in range(1 if i == 1 else rng.randint(1, 2)):
                card = f"K{len(cards) + 1:02d}"
                status = "active" if i == 1 or rng.random() < 0.8 else "frozen"
                cards[card] = {"id": card, "account_id": f"A{100 + 2 * (i - 1) + 1}", "status": status}
        accounts["A101"]["balance"] = 120.0
        accounts["A102"]["balance"] = 5000.0
        payees = {f"Y{i:02d}": {"id": f"Y{i:02d}", "name": name} for i, name in enumerate(PAYEES, 1)}
        tables: Tables = {
            "customers": customers,
            "accounts": accounts,
            "cards": cards,
            "payees": payees,
            "transactions": {},
        }
        return tables, {"transactions": 1}

    # ------------------------------------------------------------------ read tools
    @tool("Find customers by name; returns their ids.", {"name": string("Full or partial name.")})
    def find_customer(self, name: str) -> list[dict[str, Any]]:
        return [{"customer_id": c["id"], "name": c["name"]} for c in self.find_named("customers", name, "customer")]

    @tool("List a customer's accounts with their type and balance.", {"customer_id": string("Customer id, e.g. U01.")})
    def list_accounts(self, customer_id: str) -> list[dict[str, Any]]:
        self.get("customers", customer_id, "customer")
        return [view(a) for a in self.db["accounts"].values() if a["owner"] == customer_id]

    @tool("Get one account's type, owner and balance.", {"account_id": string("Account id, e.g. A101.")})
    def get_account(self, account_id: str) -> dict[str, Any]:
        return view(self.get("accounts", account_id, "account"))

    @tool("List a customer's cards with their status.", {"customer_id": string("Customer id.")})
    def list_cards(self, customer_id: str) -> list[dict[str, Any]]:
        self.get("customers", customer_id, "customer")
        owned = {a["id"] for a in self.db["accounts"].values() if a["owner"] == customer_id}
        return [view(c) for c in self.db["cards"].values() if c["account_id"] in owned]

    @tool("List the payees bills can be paid to.", {})
    def list_payees(self) -> list[dict[str, Any]]:
        return [view(p) for p in self.db["payees"].values()]

    @tool(
        "List an account's most recent transactions, newest first.",
        {"account_id": string("Account id."), "limit": integer("How many (default 10).", minimum=1, maximum=50)},
        required=("account_id",),
    )
    def list_transactions(self, account_id: str, limit: int = 10) -> list[dict[str, Any]]:
        self.get("accounts", account_id, "account")
        rows = [view(t) for t in self.db["transactions"].values() if t["account_id"] == account_id]
        return rows[::-1][:limit]

    # ------------------------------------------------------------------ write tools
    def _debit(self, account_id: str, amount: float, counterparty: str) -> None:
        account = self.get("accounts", account_id, "account")
        if amount > account["balance"] + 1e-9:
            raise ToolError(f"insufficient funds: account {account_id} holds {account['balance']:.2f}")
        self.update("accounts", account_id, balance=round(account["balance"] - amount, 2))
        self.insert(
            "transactions", {"account_id": account_id, "amount": -amount, "counterparty": counterparty}, prefix="T"
        )

    @tool(
        "Move money between two accounts.",
        {
            "from_account_id": string("Account to debit."),
            "to_account_id": string("Account to credit."),
            "amount": AMOUNT,
        },
        writes=True,
    )
    def transfer(self, from_account_id: str, to_account_id: str, amount: float) -> dict[str, Any]:
        amount = round(amount, 2)
        if from_account_id == to_account_id:
            raise ToolError("cannot transfer to the same account")
        target = self.get("accounts", to_account_id, "account")
        self._debit(from_account_id, amount, to_account_id)
        self.update("accounts", to_account_id, balance=round(target["balance"] + amount, 2))
        self.insert(
            "transactions", {"account_id": to_account_id, "amount": amount, "counterparty": from_account_id}, prefix="T"
        )
        return {"from_balance": self.db["accounts"][from_account_id]["balance"], "to_balance": target["balance"]}

    @tool(
        "Pay a bill to a payee from an account.",
        {"account_id": string("Account to pay from."), "payee_id": string("Payee id, e.g. Y01."), "amount": AMOUNT},
        writes=True,
    )
    def pay_bill(self, account_id: str, payee_id: str, amount: float) -> dict[str, Any]:
        amount = round(amount, 2)
        payee = self.get("payees", payee_id, "payee")
        self._debit(account_id, amount, payee["name"])
        return {
            "account_id": account_id,
            "paid": amount,
            "payee": payee["name"],
            "balance": self.db["accounts"][account_id]["balance"],
        }

    def _set_card_status(self, card_id: str, status: str) -> dict[str, Any]:
        """Set the card's ``status``; a card that already has it is refused."""
        card = self.get("cards", card_id, "card")
        if card["status"] == status:
            raise ToolError(f"card {card_id} is already {status}")
        self.update("cards", card_id, status=status)
        return {"card_id": card_id, "status": status}

    @tool("Freeze a card so it cannot be used.", {"card_id": string("Card id, e.g. K01.")}, writes=True)
    def freeze_card(self, card_id: str) -> dict[str, Any]:
        return self._set_card_status(card_id, "frozen")

    @tool("Unfreeze a frozen card.", {"card_id": string("Card id.")}, writes=True)
    def unfreeze_card(self, card_id: str) -> dict[str, Any]:
        return self._set_card_status(card_id, "active")
