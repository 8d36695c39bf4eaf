"""Travel booking: travellers, flights, hotels and bookings.

Tables: ``travellers`` (``TR01``...), ``flights`` (``FL100``...), ``hotels`` (``H01``...),
``bookings`` (``BK01``...; new ones ``BK101``...). Flight search does not show seat counts:
booking a sold-out flight is refused, and the agent must pick another one.

Fixtures present in every seed: traveller ``TR01`` Alan Turing; flights LON->PAR on 2025-04-01
``FL100`` (08:00, 59, sold out), ``FL101`` (12:00, 89) and ``FL102`` (18:00, 120); hotel ``H01`` in LON.
"""

from __future__ import annotations

import random
from typing import Any

from rewardlab.envs.toolcall.worlds.base import (
    DATE,
    Tables,
    ToolError,
    World,
    enum,
    integer,
    number,
    string,
    tool,
    view,
)
from rewardlab.envs.toolcall.worlds.retail import FIRST, LAST

CITIES = ["LON", "PAR", "BER", "ROM", "MAD", "AMS"]
DATES = [f"2025-04-{day:02d}" for day in range(1, 6)]
HOTEL_NAMES = ["Grand", "Central", "Riverside", "Station", "Garden", "Harbour"]
STOCK: dict[str, tuple[str, str, str]] = {
    "flight": ("flights", "seats_left", "sold out"),
    "hotel": ("hotels", "rooms_left", "full"),
}
"""Each booking kind's table, the field counting what is left, and how a refusal says none is."""


class TravelWorld(World):
    """Flights and hotels. Fixture: TR01 Alan Turing; LON->PAR 2025-04-01: FL100 sold out, FL101 open."""

    domain = "travel"
    description = "You are a travel agent. Cities are IATA-style codes (LON, PAR, ...); prices are in euros."

    @classmethod
    def generate(cls, seed: int) -> tuple[Tables, dict[str, int]]:
        rng = random.Random(f"travel-{seed}")
        travellers: dict[str, dict[str, Any]] = {}
        for i in range(1, 16):
            name = "Alan Turing" if i == 1 else f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            travellers[f"TR{i:02d}"] = {"id": f"TR{i:02d}", "name": name}
        flights: dict[str, dict[str, Any]] = {}
        routes = [("LON", "PAR")] + [(a, b) for a in CITIES for b in CITIES if a != b and (a, b) != ("LON", "PAR")]
        for origin, destination in routes:
            for date in DATES:
                for hour in sorted(rng.sample(range(6, 22), 3)):
                    key = f"FL{100 + len(flights)}"
                    flights[key] = {
                        "id": key,
                        "origin": origin,
                        "destination": destination,
                        "date": date,
                        "depart": f"{hour:02d}:00",
                        "price": rng.randint(40, 400),
                        "seats_left": rng.choice([0, 1, 3, 9, 30]),
                    }
        flights["FL100"].update(depart="08:00", price=59, seats_left=0)
        flights["FL101"].update(depart="12:00", price=89, seats_left=5)
        flights["FL102"].update(depart="18:00", price=120, seats_left=9)
        hotels: dict[str, dict[str, Any]] = {}
        for city in CITIES:
            for name in rng.sample(HOTEL_NAMES, 3):
                key = f"H{len(hotels) + 1:02d}"
                hotels[key] = {
                    "id": key,
                    "city": city,
                    "name": f"Hotel {name} {city}",
                    "price_per_night": rng.randint(60, 300),
                    "rooms_left": rng.choice([0, 2, 5, 12]),
                }
        hotels["H01"].update(rooms_left=5)
        bookings: dict[str, dict[str, Any]] = {}
        for traveller in list(travellers)[:10]:
            for _ in range(rng.randint(0, 2)):
                key = f"BK{len(bookings) + 1:02d}"
                flight = rng.choice(sorted(flights))
                bookings[key] = {"id": key, "traveller_id": traveller, "kind": "flight", "item_id": flight}
                bookings[key].update(status="confirmed", check_in=flights[flight]["date"], nights=0)
        tables: Tables = {"travellers": travellers, "flights": flights, "hotels": hotels, "bookings": bookings}
        return tables, {"bookings": 101}

    # ------------------------------------------------------------------ read tools
    @tool("Find travellers by name.", {"name": string("Full or partial name.")})
    def find_traveller(self, name: str) -> list[dict[str, Any]]:
        return self.find_named("travellers", name, "traveller")

    @tool(
        "Search flights on a route and date, earliest first. Seat availability is only known when booking.",
        {
            "origin": enum("Origin city.", CITIES),
            "destination": enum("Destination city.", CITIES),
            "date": string("Date, YYYY-MM-DD.", **DATE),
        },
    )
    def search_flights(self, origin: str, destination: str, date: str) -> list[dict[str, Any]]:
        found = [
            {"flight_id": f["id"], "depart": f["depart"], "price": f["price"]}
            for f in self.db["flights"].values()
            if f["origin"] == origin and f["destination"] == destination and f["date"] == date
        ]
        return sorted(found, key=lambda f: f["depart"])

    @tool(
        "Search hotels in a city, cheapest first.",
        {"city": enum("City.", CITIES), "max_price": number("Most per night.", exclusiveMinimum=0)},
        required=("city",),
    )
    def search_hotels(self, city: str, max_price: float | None = None) -> list[dict[str, Any]]:
        found = [
            {"hotel_id": h["id"], "name": h["name"], "price_per_night": h["price_per_night"]}
            for h in self.db["hotels"].values()
            if h["city"] == city and (max_price is None or h["price_per_night"] <= max_price)
        ]
        return sorted(found, key=lambda h: (h["price_per_night"], h["hotel_id"]))

    @tool("List a traveller's bookings.", {"traveller_id": string("Traveller id, e.g. TR01.")})
    def list_bookings(self, traveller_id: str) -> list[dict[str, Any]]:
        self.get("travellers", traveller_id, "traveller")
        return [view(b) for b in self.db["bookings"].values() if b["traveller_id"] == traveller_id]

    # ------------------------------------------------------------------ write tools
    def _take_one(self, kind: str, item_id: str) -> dict[str, Any]:
        """Take one seat or room of the flight or hotel ``item_id`` (``kind``); refused when none is left.
        Returns the stored item."""
        table, field, none_left = STOCK[kind]
        item = self.get(table, item_id, kind)
        if item[field] <= 0:
            raise ToolError(f"{kind} {item_id} is {none_left}")
        self.update(table, item_id, **{field: item[field] - 1})
        return item

    def _record_booking(self, traveller_id: str, kind: str, item_id: str, *, check_in: str, nights: int) -> str:
        """Insert a confirmed booking of ``item_id`` for the traveller; returns its id (``BK101``...)."""
        record = {"traveller_id": traveller_id, "kind": kind, "item_id": item_id, "status": "confirmed"}
        return self.insert("bookings", {**record, "check_in": check_in, "nights": nights}, prefix="BK")

    @tool(
        "Book a seat on a flight; refused when the flight is sold out.",
        {"traveller_id": string("Traveller id."), "flight_id": string("Flight id.")},
        writes=True,
    )
    def book_flight(self, traveller_id: str, flight_id: str) -> dict[str, Any]:
        self.get("travellers", traveller_id, "traveller")
        flight = self._take_one("flight", flight_id)
        key = self._record_booking(traveller_id, "flight", flight_id, check_in=flight["date"], nights=0)
        return {"booking_id": key, "flight_id": flight_id, "price": flight["price"]}

    @tool(
        "Book a hotel room; refused when the hotel is full.",
        {
            "traveller_id": string("Traveller id."),
            "hotel_id": string("Hotel id."),
            "check_in": string("Check-in date, YYYY-MM-DD.", **DATE),
            "nights": integer("Number of nights.", minimum=1, maximum=30),
        },
        writes=True,
    )
    def book_hotel(self, traveller_id: str, hotel_id: str, check_in: str, nights: int) -> dict[str, Any]:
        self.get("travellers", traveller_id, "traveller")
        hotel = self._take_one("hotel", hotel_id)
        key = self._record_booking(traveller_id, "hotel", hotel_id, check_in=check_in, nights=nights)
        return {"booking_id": key, "hotel_id": hotel_id, "total": hotel["price_per_night"] * nights}

    @tool(
        "Cancel a confirmed booking; the seat or room is released.", {"booking_id": string("Booking id.")}, writes=True
    )
    def cancel_booking(self, booking_id: str) -> dict[str, Any]:
        booking = self.get("bookings", booking_id, "booking")
        if booking["status"] != "confirmed":
            raise ToolError(f"booking {booking_id} is already {booking['status']}")
        self.update("bookings", booking_id, status="cancelled")
        table, field, _ = STOCK[booking["kind"]]
        item = self.db[table][booking["item_id"]]
        self.update(table, item["id"], **{field: item[field] + 1})
        return {"booking_id": booking_id, "status": "cancelled"}
