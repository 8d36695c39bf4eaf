"""Calendar and email: contacts, the user's calendar events, and a mailbox.

Tables: ``contacts`` (``ct01``...), ``events`` (``E01``...; new ones ``E101``...), ``emails``
(``M01``... in the inbox; sent mail gets ``M101``...). Events on the same date may not overlap:
creating or moving an event into a taken slot is refused with the conflicting event.

Fixtures present in every seed: contact ``ct01`` Grace Hopper (``grace@example.com``), event
``E01`` "Team standup" on 2025-03-10 09:00-09:30.
"""

from __future__ import annotations

import random
from typing import Any

from rewardlab.envs.toolcall.worlds.base import DATE, TIME, Tables, ToolError, World, string, string_list, tool, view
from rewardlab.envs.toolcall.worlds.retail import FIRST, LAST

DATES = [f"2025-03-{day:02d}" for day in range(10, 15)]
TITLES = ["Design review", "1:1", "Budget sync", "Hiring panel", "Lunch", "Roadmap planning", "Demo", "Retro"]
SUBJECTS = ["Invoice", "Offsite agenda", "Quarterly report", "Travel plans", "Contract draft", "Welcome aboard"]


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


class CalendarWorld(World):
    """A calendar and mailbox. Fixture: contact ct01 Grace Hopper, event E01 "Team standup" 2025-03-10 09:00."""

    domain = "calendar"
    description = "You are a personal assistant managing the user's calendar and email. Dates are YYYY-MM-DD."
    free_arguments = frozenset({"body"})
    free_text = {"emails": frozenset({"body"})}

    @classmethod
    def generate(cls, seed: int) -> tuple[Tables, dict[str, int]]:
        rng = random.Random(f"calendar-{seed}")
        contacts: dict[str, dict[str, Any]] = {}
        names = ["Grace Hopper"] + sorted({f"{f} {surname}" for f in FIRST for surname in LAST} - {"Grace Hopper"})
        for i, name in enumerate([names[0], *rng.sample(names[1:], 14)], 1):
            first, last = name.lower().split()
            email = "grace@example.com" if i == 1 else f"{first}.{last}@example.com"
            contacts[f"ct{i:02d}"] = {"id": f"ct{i:02d}", "name": name, "email": email}
        emails = [c["email"] for c in contacts.values()]
        events: dict[str, dict[str, Any]] = {
            "E01": {"id": "E01", "title": "Team standup", "date": DATES[0], "start": "09:00", "end": "09:30"}
        }
        events["E01"]["attendees"] = sorted(emails[:3])
        for date in DATES:
            for hour in sorted(rng.sample(range(10, 17), 3)):
                key = f"E{len(events) + 1:02d}"
                events[key] = {
                    "id": key,
                    "title": rng.choice(TITLES),
                    "date": date,
                    "start": f"{hour:02d}:00",
                    "end": f"{hour:02d}:{rng.choice(['30', '45'])}",
                    "attendees": sorted(rng.sample(emails, rng.randint(1, 3))),
                }
        inbox: dict[str, dict[str, Any]] = {}
        for i in range(1, 13):
            key = f"M{i:02d}"
            inbox[key] = {
                "id": key,
                "folder": "inbox",
                "from": rng.choice(emails),
                "to": ["me@example.com"],
                "subject": f"{rng.choice(SUBJECTS)} #{i}",
                "body": f"Please review item {rng.randint(100, 999)} by {rng.choice(DATES)}.",
            }
        tables: Tables = {"contacts": contacts, "events": events, "emails": inbox}
        return tables, {"events": 101, "emails": 101}

    def _check_slot(self, date: str, start: str, end: str, ignore: str | None = None) -> None:
        if _minutes(start) >= _minutes(end):
            raise ToolError(f"start {start} must be before end {end}")
        for event in self.db["events"].values():
            overlaps = _minutes(start) < _minutes(event["end"]) and _minutes(event["start"]) < _minutes(end)
            if event["id"] != ignore and event["date"] == date and overlaps:
                raise ToolError(
                    f"{date} {start}-{end} conflicts with {event['id']} {event['title']!r} "
                    f"{event['start']}-{event['end']}"
                )

    # ------------------------------------------------------------------ read tools
    @tool("Find contacts whose name contains the text.", {"name": string("Full or partial name.")})
    def find_contact(self, name: str) -> list[dict[str, Any]]:
        return self.find_named("contacts", name, "contact")

    @tool("List the events on a date, earliest first.", {"date": string("Date, YYYY-MM-DD.", **DATE)})
    def list_events(self, date: str) -> list[dict[str, Any]]:
        found = [view(e) for e in self.db["events"].values() if e["date"] == date]
        return sorted(found, key=lambda e: e["start"])

    @tool("Search the inbox for emails whose subject contains the text.", {"query": string("Text to look for.")})
    def search_inbox(self, query: str) -> list[dict[str, Any]]:
        needle = query.strip().lower()
        return [
            view(m) for m in self.db["emails"].values() if m["folder"] == "inbox" and needle in m["subject"].lower()
        ]

    # ------------------------------------------------------------------ write tools
    @tool(
        "Create an event; refused when it overlaps another event that day.",
        {
            "title": string("Event title."),
            "date": string("Date, YYYY-MM-DD.", **DATE),
            "start": string("Start time, HH:MM (24h).", **TIME),
            "end": string("End time, HH:MM (24h).", **TIME),
            "attendees": string_list("Attendee email addresses."),
        },
        writes=True,
    )
    def create_event(self, title: str, date: str, start: str, end: str, attendees: list[str]) -> dict[str, Any]:
        self._check_slot(date, start, end)
        record = {"title": title, "date": date, "start": start, "end": end, "attendees": sorted(set(attendees))}
        return {"event_id": self.insert("events", record, prefix="E"), **record}

    @tool("Cancel (delete) an event.", {"event_id": string("Event id.")}, writes=True)
    def cancel_event(self, event_id: str) -> dict[str, Any]:
        self.get("events", event_id, "event")
        self.delete("events", event_id)
        return {"event_id": event_id, "cancelled": True}

    @tool(
        "Move an event to a new date and time; refused when the new slot is taken.",
        {
            "event_id": string("Event id."),
            "date": string("New date, YYYY-MM-DD.", **DATE),
            "start": string("New start, HH:MM.", **TIME),
            "end": string("New end, HH:MM.", **TIME),
        },
        writes=True,
    )
    def reschedule_event(self, event_id: str, date: str, start: str, end: str) -> dict[str, Any]:
        self.get("events", event_id, "event")
        self._check_slot(date, start, end, ignore=event_id)
        self.update("events", event_id, date=date, start=start, end=end)
        return view(self.db["events"][event_id])

    @tool(
        "Send an email.",
        {
            "to": string_list("Recipient email addresses."),
            "subject": string("Subject line."),
            "body": string("Message body.", max_length=5000),
        },
        writes=True,
    )
    def send_email(self, to: list[str], subject: str, body: str) -> dict[str, Any]:
        record = {"folder": "sent", "from": "me@example.com", "to": sorted(set(to)), "subject": subject, "body": body}
        return {"email_id": self.insert("emails", record, prefix="M"), "sent": True}
