"""Write the shipped BPMN tasks: ``data/tasks.jsonl`` and the generated reference models.

Run ``python -m rewardlab.envs.bpmn.build.generate`` after changing a spec; the output is
deterministic (no randomness, stable ids) and ``tests/envs/bpmn/test_bpmn_tasks.py`` checks that the
committed files match it.

Two sources of tasks:

- **Generated** (``gen-*``): block-structured specs below, five difficulty levels — 1: sequences;
  2: one exclusive, parallel or inclusive gateway; 3: loops, intermediate and boundary events,
  combined gateways; 4: lanes, nested gateways, event-based gateways; 5: pools and message
  flows. Prompt and reference come from the same spec (:mod:`rewardlab.envs.bpmn.build.specs`).
- **MIWG** (``miwg-*``): the 21 reference models of the OMG BPMN Model Interchange Working Group
  test suite (CC BY 3.0, see ``data/references/miwg/LICENSE.txt``). Each prompt is a hand-written
  summary of the case followed by a walk through the reference's elements and flows
  (:func:`walk_model`); the reference file is the gold answer.

Every fourth task of each source goes to the test split.
"""

from __future__ import annotations

import json

from rewardlab.envs.bpmn.build.specs import (
    Activity,
    Choice,
    CollaborationSpec,
    Event,
    Guarded,
    Loop,
    Parallel,
    ProcessSpec,
    Race,
    Seq,
    blocks_of,
    describe,
    to_bpmn,
)
from rewardlab.envs.bpmn.model import BPMNModel, extract_model
from rewardlab.envs.bpmn.parse import read_answer
from rewardlab.envs.bpmn.tasks import DATA

A = Activity

INSTRUCTION = (
    "Model the following process as one BPMN 2.0 XML document (a <definitions> element in the namespace "
    "http://www.omg.org/spec/BPMN/20100524/MODEL). Use exactly the element names given in quotes."
)

GENERATED: list[tuple[str, int, ProcessSpec | CollaborationSpec]] = [
    # ------------------------------------------------------------------ level 1: sequences
    (
        "coffee",
        1,
        ProcessSpec(
            "Make coffee", "Coffee wanted", Seq(A("Grind beans"), A("Brew coffee"), A("Serve coffee")), "Coffee served"
        ),
    ),
    (
        "password-reset",
        1,
        ProcessSpec(
            "Password reset",
            "Reset requested",
            Seq(A("Verify identity", "userTask"), A("Send reset link", "sendTask"), A("Set new password", "userTask")),
            "Password changed",
        ),
    ),
    (
        "expense-report",
        1,
        ProcessSpec(
            "Expense report",
            "Trip finished",
            Seq(
                A("Collect receipts"),
                A("Fill in expense form", "userTask"),
                A("Submit expense report", "userTask"),
                A("Reimburse employee", "serviceTask"),
            ),
            "Expenses reimbursed",
        ),
    ),
    (
        "library-loan",
        1,
        ProcessSpec(
            "Library loan",
            "Book requested",
            Seq(A("Check member card"), A("Scan book", "serviceTask"), A("Hand over book", "manualTask")),
            "Book lent",
        ),
    ),
    (
        "parcel-return",
        1,
        ProcessSpec(
            "Parcel return",
            "Return registered",
            Seq(
                A("Print return label", "userTask"),
                A("Pack parcel", "manualTask"),
                A("Drop off parcel", "manualTask"),
                A("Confirm receipt", "receiveTask"),
            ),
            "Return completed",
        ),
    ),
    (
        "newsletter",
        1,
        ProcessSpec(
            "Newsletter subscription",
            "Sign-up form submitted",
            Seq(
                A("Send confirmation email", "sendTask"),
                A("Confirm subscription", "userTask"),
                A("Add contact to mailing list", "serviceTask"),
            ),
            "Subscribed",
        ),
    ),
    (
        "meeting-minutes",
        1,
        ProcessSpec(
            "Meeting minutes",
            "Meeting ended",
            Seq(A("Write minutes"), A("Review minutes", "userTask"), A("Distribute minutes", "sendTask")),
            "Minutes shared",
        ),
    ),
    (
        "car-wash",
        1,
        ProcessSpec(
            "Car wash",
            "Car arrived",
            Seq(
                A("Take payment"),
                A("Wash car", "manualTask"),
                A("Dry car", "manualTask"),
                A("Return keys", "manualTask"),
            ),
            "Car clean",
        ),
    ),
    # ------------------------------------------------------------------ level 2: one gateway
    (
        "loan-decision",
        2,
        ProcessSpec(
            "Loan decision",
            "Application received",
            Seq(
                A("Check credit score", "serviceTask"),
                Choice(
                    "Score sufficient?", (("yes", A("Approve loan", "userTask")), ("no", A("Reject loan", "userTask")))
                ),
                A("Notify applicant", "sendTask"),
            ),
            "Applicant notified",
        ),
    ),
    (
        "stock-check",
        2,
        ProcessSpec(
            "Order fulfilment",
            "Order received",
            Seq(
                A("Check stock"),
                Choice(
                    "Item in stock?",
                    (
                        ("in stock", A("Ship item")),
                        ("out of stock", Seq(A("Order from supplier"), A("Ship item later"))),
                    ),
                ),
            ),
            "Order shipped",
        ),
    ),
    (
        "travel-prep",
        2,
        ProcessSpec(
            "Business trip preparation",
            "Trip approved",
            Seq(
                Parallel((A("Book flight"), A("Book hotel"), A("Order foreign currency"))),
                A("Send itinerary", "sendTask"),
            ),
            "Trip prepared",
        ),
    ),
    (
        "house-move",
        2,
        ProcessSpec(
            "House move",
            "Moving date fixed",
            Seq(
                Parallel((A("Cancel old internet contract"), A("Register new address", "userTask"))),
                A("Move furniture", "manualTask"),
            ),
            "Moved in",
        ),
    ),
    (
        "support-ticket",
        2,
        ProcessSpec(
            "Support ticket triage",
            "Ticket opened",
            Seq(
                A("Classify ticket", "userTask"),
                Choice(
                    "Ticket type?",
                    (
                        ("bug", A("Forward to developers", "sendTask")),
                        ("question", A("Answer question", "userTask")),
                        ("feature request", A("Add to backlog", "serviceTask")),
                    ),
                ),
            ),
            "Ticket handled",
        ),
    ),
    (
        "conference-registration",
        2,
        ProcessSpec(
            "Conference registration",
            "Registration received",
            Seq(
                A("Record registration", "serviceTask"),
                Choice(
                    "Which extras were booked?",
                    (
                        ("workshop", A("Reserve workshop seat")),
                        ("dinner", A("Reserve dinner place")),
                        ("hotel", A("Reserve hotel room")),
                    ),
                    inclusive=True,
                ),
                A("Send confirmation", "sendTask"),
            ),
            "Registration confirmed",
        ),
    ),
    (
        "car-service",
        2,
        ProcessSpec(
            "Car service",
            "Car checked in",
            Seq(Parallel((A("Change oil", "manualTask"), A("Check brakes", "manualTask"))), A("Prepare bill")),
            "Car ready",
        ),
    ),
    (
        "refund-request",
        2,
        ProcessSpec(
            "Refund request",
            "Refund requested",
            Seq(
                A("Check purchase date"),
                Choice(
                    "Within 30 days?",
                    (("yes", A("Refund payment", "serviceTask")), ("no", A("Offer store credit", "userTask"))),
                ),
            ),
            "Request closed",
        ),
    ),
    (
        "job-application",
        2,
        ProcessSpec(
            "Job application screening",
            "Application received",
            Seq(
                A("Screen CV", "userTask"),
                Choice(
                    "Candidate suitable?",
                    (("yes", A("Invite to interview", "sendTask")), ("no", A("Send rejection", "sendTask"))),
                ),
            ),
            "Application answered",
        ),
    ),
    (
        "website-release",
        2,
        ProcessSpec(
            "Website release",
            "Release planned",
            Seq(
                A("Freeze code"),
                Parallel((A("Run tests", "scriptTask"), A("Update documentation"), A("Prepare release notes"))),
                A("Deploy release", "serviceTask"),
            ),
            "Release live",
        ),
    ),
    # ------------------------------------------------------------------ level 3: loops, events, combinations
    (
        "document-review",
        3,
        ProcessSpec(
            "Document review",
            "Draft ready",
            Seq(
                Loop(Seq(A("Review draft", "userTask"), A("Revise draft")), "Draft approved?", "no", "yes"),
                A("Publish document"),
            ),
            "Document published",
        ),
    ),
    (
        "payment-reminder",
        3,
        ProcessSpec(
            "Invoice payment",
            "Invoice sent",
            Seq(
                Guarded(
                    A("Wait for payment", "receiveTask"),
                    "14 days passed",
                    "timer",
                    A("Send payment reminder", "sendTask"),
                    "Reminder sent",
                ),
                A("Book payment", "serviceTask"),
            ),
            "Invoice paid",
        ),
    ),
    (
        "bread-baking",
        3,
        ProcessSpec(
            "Bread baking",
            "Baking started",
            Seq(
                A("Knead dough", "manualTask"),
                Event("Dough risen after 2 hours", "timer"),
                A("Bake bread", "manualTask"),
            ),
            "Bread baked",
        ),
    ),
    (
        "pizza-order",
        3,
        ProcessSpec(
            "Pizza order",
            "Hungry",
            Seq(A("Order pizza"), Event("Pizza delivered", "message"), A("Eat pizza", "manualTask")),
            "Hunger satisfied",
        ),
    ),
    (
        "claim-handling",
        3,
        ProcessSpec(
            "Insurance claim",
            "Claim received",
            Seq(
                A("Register claim", "serviceTask"),
                Choice(
                    "Claim complete?",
                    (
                        ("no", Seq(A("Request missing documents", "sendTask"), Event("Documents received", "message"))),
                        ("yes", Seq()),
                    ),
                ),
                Parallel((A("Assess damage", "userTask"), A("Check policy", "serviceTask"))),
                Choice(
                    "Claim covered?", (("yes", A("Pay claim", "serviceTask")), ("no", A("Reject claim", "sendTask")))
                ),
            ),
            "Claim settled",
        ),
    ),
    (
        "data-import",
        3,
        ProcessSpec(
            "Data import",
            "File uploaded",
            Seq(
                Loop(
                    Seq(
                        A("Validate file", "scriptTask"),
                        Choice("Errors found?", (("yes", A("Fix errors", "userTask")), ("no", Seq()))),
                    ),
                    "File valid?",
                    "not yet",
                    "valid",
                ),
                A("Import records", "serviceTask"),
            ),
            "Data imported",
        ),
    ),
    (
        "server-incident",
        3,
        ProcessSpec(
            "Server incident",
            "Alert raised",
            Seq(
                A("Acknowledge alert", "userTask"),
                Guarded(
                    A("Restart service", "scriptTask"),
                    "Restart failed",
                    "error",
                    A("Escalate to on-call engineer", "sendTask"),
                    "Incident escalated",
                ),
                A("Verify service health", "serviceTask"),
            ),
            "Incident resolved",
        ),
    ),
    (
        "quote-request",
        3,
        ProcessSpec(
            "Quote request",
            "Request for quote received",
            Seq(
                A("Prepare quote", "userTask"),
                A("Send quote", "sendTask"),
                Guarded(
                    A("Wait for customer decision", "receiveTask"),
                    "Offer expired",
                    "timer",
                    A("Archive quote"),
                    "Quote expired",
                ),
                Choice(
                    "Quote accepted?",
                    (("accepted", A("Create sales order", "serviceTask")), ("declined", A("Record lost deal"))),
                ),
            ),
            "Quote closed",
        ),
    ),
    (
        "recipe-test",
        3,
        ProcessSpec(
            "Recipe testing",
            "New recipe idea",
            Seq(
                A("Write recipe"),
                Loop(
                    Seq(A("Cook dish", "manualTask"), A("Taste dish", "manualTask"), A("Adjust recipe")),
                    "Dish tastes good?",
                    "no",
                    "yes",
                ),
                A("Add recipe to menu"),
            ),
            "Recipe on menu",
        ),
    ),
    (
        "visa-application",
        3,
        ProcessSpec(
            "Visa application",
            "Visa needed",
            Seq(
                A("Fill in application form", "userTask"),
                Parallel((A("Take passport photo", "manualTask"), A("Get travel insurance"))),
                A("Submit application", "sendTask"),
                Event("Decision letter received", "message"),
                Choice(
                    "Visa granted?",
                    (("granted", A("Collect visa", "manualTask")), ("refused", A("File appeal", "userTask"))),
                ),
            ),
            "Visa process finished",
        ),
    ),
    (
        "subscription-renewal",
        3,
        ProcessSpec(
            "Subscription renewal",
            "Renewal due",
            Seq(
                A("Send renewal offer", "sendTask"),
                Race(
                    (
                        (Event("Renewal confirmed", "message"), A("Charge card", "serviceTask")),
                        (Event("30 days without answer", "timer"), A("Cancel subscription", "serviceTask")),
                    )
                ),
            ),
            "Renewal handled",
        ),
    ),
    # ------------------------------------------------------------------ level 4: lanes, nesting, event-based gateways
    (
        "purchase-approval",
        4,
        ProcessSpec(
            "Purchase approval",
            "Purchase requested",
            Seq(
                A("Fill in purchase request", "userTask", lane="Employee"),
                A("Review request", "userTask", lane="Manager"),
                Choice(
                    "Request approved?",
                    (
                        (
                            "approved",
                            Seq(
                                A("Order goods", lane="Procurement"),
                                A("Receive goods", "receiveTask", lane="Procurement"),
                            ),
                        ),
                        ("rejected", A("Inform employee", "sendTask", lane="Manager")),
                    ),
                    lane="Manager",
                ),
            ),
            "Request closed",
            lanes=("Employee", "Manager", "Procurement"),
        ),
    ),
    (
        "hospital-admission",
        4,
        ProcessSpec(
            "Hospital admission",
            "Patient arrived",
            Seq(
                A("Register patient", "userTask", lane="Reception"),
                A("Triage patient", "userTask", lane="Nurse"),
                Choice(
                    "Emergency?",
                    (
                        ("yes", A("Treat immediately", "manualTask", lane="Doctor")),
                        (
                            "no",
                            Seq(
                                A("Schedule examination", lane="Reception"),
                                A("Examine patient", "manualTask", lane="Doctor"),
                            ),
                        ),
                    ),
                    lane="Nurse",
                ),
                A("Write discharge letter", "userTask", lane="Doctor"),
            ),
            "Patient discharged",
            lanes=("Reception", "Nurse", "Doctor"),
        ),
    ),
    (
        "restaurant-order",
        4,
        ProcessSpec(
            "Restaurant order",
            "Guests seated",
            Seq(
                A("Take order", "userTask", lane="Waiter"),
                Parallel(
                    (
                        Seq(
                            A("Prepare starter", "manualTask", lane="Kitchen"),
                            A("Prepare main course", "manualTask", lane="Kitchen"),
                        ),
                        A("Serve drinks", "manualTask", lane="Bar"),
                    ),
                    lane="Waiter",
                ),
                A("Serve food", "manualTask", lane="Waiter"),
                A("Bring bill", lane="Waiter"),
            ),
            "Guests paid",
            lanes=("Waiter", "Kitchen", "Bar"),
        ),
    ),
    (
        "code-review",
        4,
        ProcessSpec(
            "Code review",
            "Pull request opened",
            Seq(
                Parallel(
                    (
                        A("Run CI pipeline", "serviceTask"),
                        Loop(
                            Seq(
                                A("Review code", "userTask"),
                                Choice("Changes needed?", (("yes", A("Push fixes")), ("no", Seq()))),
                            ),
                            "Reviewer satisfied?",
                            "no",
                            "yes",
                        ),
                    )
                ),
                A("Merge pull request", "serviceTask"),
            ),
            "Change merged",
        ),
    ),
    (
        "auction-bid",
        4,
        ProcessSpec(
            "Online auction",
            "Item listed",
            Seq(
                A("Publish listing", "serviceTask"),
                Race(
                    (
                        (
                            Event("Bid received", "message"),
                            Seq(
                                A("Record bid", "serviceTask"),
                                Choice(
                                    "Reserve price reached?",
                                    (
                                        ("yes", A("Close auction", "serviceTask")),
                                        ("no", A("Notify seller", "sendTask")),
                                    ),
                                ),
                            ),
                        ),
                        (Event("Auction period ended", "timer"), A("Relist item", "serviceTask")),
                    )
                ),
            ),
            "Auction finished",
        ),
    ),
    (
        "it-onboarding",
        4,
        ProcessSpec(
            "IT onboarding",
            "New hire announced",
            Seq(
                A("Create user account", "serviceTask", lane="IT"),
                Parallel(
                    (
                        Seq(A("Order laptop", lane="IT"), A("Set up laptop", "manualTask", lane="IT")),
                        A("Prepare desk", "manualTask", lane="Facilities"),
                        A("Plan first week", "userTask", lane="Team lead"),
                    ),
                    lane="IT",
                ),
                A("Welcome new hire", "manualTask", lane="Team lead"),
            ),
            "Onboarding done",
            lanes=("IT", "Facilities", "Team lead"),
        ),
    ),
    (
        "grant-proposal",
        4,
        ProcessSpec(
            "Grant proposal",
            "Call for proposals published",
            Seq(
                A("Draft proposal", "userTask"),
                Loop(
                    Seq(
                        Parallel((A("Review budget", "userTask"), A("Review science", "userTask"))),
                        Choice("Major issues?", (("yes", A("Rework proposal")), ("no", Seq()))),
                    ),
                    "Ready to submit?",
                    "no",
                    "yes",
                ),
                Guarded(
                    A("Submit proposal", "sendTask"),
                    "Portal unavailable",
                    "error",
                    A("Email proposal to agency", "sendTask"),
                    "Submitted by email",
                ),
            ),
            "Proposal submitted",
        ),
    ),
    # ------------------------------------------------------------------ level 5: pools and message flows
    (
        "online-shop",
        5,
        CollaborationSpec(
            (
                (
                    "Customer",
                    ProcessSpec(
                        "Buying",
                        "Product chosen",
                        Seq(
                            A("Place order", "sendTask"),
                            A("Receive invoice", "receiveTask"),
                            A("Pay invoice", "sendTask"),
                        ),
                        "Order paid",
                    ),
                ),
                (
                    "Shop",
                    ProcessSpec(
                        "Selling",
                        "Order received",
                        Seq(
                            A("Check order"),
                            A("Send invoice", "sendTask"),
                            A("Receive payment", "receiveTask"),
                            A("Ship goods"),
                        ),
                        "Order shipped",
                        start_trigger="message",
                    ),
                ),
            ),
            (
                ("Place order", "Order received", "Order"),
                ("Send invoice", "Receive invoice", "Invoice"),
                ("Pay invoice", "Receive payment", "Payment"),
            ),
        ),
    ),
    (
        "doctor-appointment",
        5,
        CollaborationSpec(
            (
                (
                    "Patient",
                    ProcessSpec(
                        "Getting an appointment",
                        "Feeling ill",
                        Seq(
                            A("Request appointment", "sendTask"),
                            A("Receive appointment", "receiveTask"),
                            A("Visit doctor", "manualTask"),
                        ),
                        "Appointment attended",
                    ),
                ),
                (
                    "Practice",
                    ProcessSpec(
                        "Scheduling",
                        "Appointment request received",
                        Seq(A("Check calendar", "userTask"), A("Send appointment", "sendTask")),
                        "Appointment scheduled",
                        start_trigger="message",
                    ),
                ),
            ),
            (
                ("Request appointment", "Appointment request received", "Appointment request"),
                ("Send appointment", "Receive appointment", "Appointment"),
            ),
        ),
    ),
    (
        "supplier-order",
        5,
        CollaborationSpec(
            (
                (
                    "Manufacturer",
                    ProcessSpec(
                        "Replenishment",
                        "Stock low",
                        Seq(
                            A("Create purchase order", "userTask"),
                            A("Send purchase order", "sendTask"),
                            Guarded(
                                A("Receive delivery", "receiveTask"),
                                "Delivery late",
                                "timer",
                                A("Call supplier", "userTask"),
                                "Supplier called",
                            ),
                            A("Store materials", "manualTask"),
                        ),
                        "Stock replenished",
                    ),
                ),
                (
                    "Supplier",
                    ProcessSpec(
                        "Order processing",
                        "Purchase order received",
                        Seq(
                            A("Check availability"),
                            Choice(
                                "Materials available?", (("yes", Seq()), ("no", A("Produce materials", "manualTask")))
                            ),
                            A("Deliver materials", "sendTask"),
                        ),
                        "Order delivered",
                        start_trigger="message",
                    ),
                ),
            ),
            (
                ("Send purchase order", "Purchase order received", "Purchase order"),
                ("Deliver materials", "Receive delivery", "Delivery"),
            ),
        ),
    ),
    (
        "tax-return",
        5,
        CollaborationSpec(
            (
                (
                    "Citizen",
                    ProcessSpec(
                        "Filing taxes",
                        "Tax year over",
                        Seq(
                            A("Collect documents"),
                            A("Submit tax return", "sendTask"),
                            A("Receive assessment", "receiveTask"),
                            Choice(
                                "Assessment correct?",
                                (("yes", A("Pay tax", "sendTask")), ("no", A("File objection", "sendTask"))),
                            ),
                        ),
                        "Taxes settled",
                    ),
                ),
                (
                    "Tax office",
                    ProcessSpec(
                        "Assessing taxes",
                        "Tax return received",
                        Seq(A("Check tax return", "userTask"), A("Send assessment", "sendTask")),
                        "Assessment sent",
                        start_trigger="message",
                    ),
                ),
            ),
            (
                ("Submit tax return", "Tax return received", "Tax return"),
                ("Send assessment", "Receive assessment", "Assessment"),
            ),
        ),
    ),
    (
        "food-delivery",
        5,
        CollaborationSpec(
            (
                (
                    "Customer",
                    ProcessSpec(
                        "Ordering food",
                        "Hungry",
                        Seq(A("Order food", "sendTask"), A("Receive food", "receiveTask")),
                        "Food eaten",
                    ),
                ),
                (
                    "Restaurant",
                    ProcessSpec(
                        "Cooking",
                        "Food order received",
                        Seq(A("Cook food", "manualTask"), A("Hand food to courier", "sendTask")),
                        "Food handed over",
                        start_trigger="message",
                    ),
                ),
                (
                    "Courier",
                    ProcessSpec(
                        "Delivering",
                        "Food picked up",
                        Seq(A("Ride to customer", "manualTask"), A("Deliver food", "sendTask")),
                        "Food delivered",
                        start_trigger="message",
                    ),
                ),
            ),
            (
                ("Order food", "Food order received", "Food order"),
                ("Hand food to courier", "Food picked up", "Food"),
                ("Deliver food", "Receive food", "Delivery"),
            ),
        ),
    ),
]

MIWG_SUMMARIES: dict[str, tuple[int, str]] = {
    "A.1.0": (1, "A single sequence: a start event, three tasks in a row and an end event."),
    "A.2.0": (2, "Flows diverge at an unmarked exclusive gateway into three tasks and converge again before the end."),
    "A.2.1": (
        2,
        "Divergence and convergence of flows with default and conditional sequence flows from tasks and gateways.",
    ),
    "A.3.0": (
        3,
        "Boundary events on a task and on a collapsed sub-process lead to exception flows with their own end events.",
    ),
    "A.4.0": (4, "Elements contained in expanded sub-processes, lanes and pools, with message flows between pools."),
    "A.4.1": (
        4,
        (
            "Like the containment case, drawn in vertical modelling direction: expanded sub-processes, three "
            "lanes and two pools."
        ),
    ),
    "B.1.0": (
        5,
        (
            "A larger descriptive model: several start events (none, timer, message), user, service and abstract "
            "tasks, exclusive and parallel gateways, sub-processes, two pools and message flows."
        ),
    ),
    "B.2.0": (
        5,
        (
            "A large analytic model: many tasks with loop and multi-instance markers, expanded and collapsed sub-"
            "processes, many event types, boundary events and all gateway types."
        ),
    ),
    "C.1.0": (
        4,
        (
            "Invoice receipt: a team assistant and a process engine collaborate to scan, assign, approve and pay "
            "an invoice."
        ),
    ),
    "C.1.1": (
        3,
        (
            "Executable invoice approval: assign an approver, approve the invoice, review it if needed, prepare "
            "the bank transfer and archive it."
        ),
    ),
    "C.2.0": (
        5,
        (
            "Online purchase: a customer, Amazon, a credit card company and a carrier exchange messages to order,"
            " pay for and deliver items."
        ),
    ),
    "C.3.0": (
        3,
        (
            "Fridge repair service: analyse the customer request and choose emergency repair, standard or premium"
            " repair, or replacement."
        ),
    ),
    "C.4.0": (
        5,
        "Employee onboarding across several pools: contract, payroll, IT set-up, welcome package and training.",
    ),
    "C.5.0": (
        5,
        "Bank customer onboarding with know-your-customer checks, risk assessment and approval across three lanes.",
    ),
    "C.6.0": (
        5,
        (
            "Travel booking: make a flight and hotel offer, wait for approval or cancellation, book with "
            "compensation on failure."
        ),
    ),
    "C.7.0": (
        3,
        (
            "Job vacancy advertisement: write and approve the advertisement, then publish it on the homepage and "
            "other platforms in parallel."
        ),
    ),
    "C.8.0": (
        4,
        (
            "Vacation request: fetch vacation data, decide automatically by a business rule or manually, notify "
            "the employee."
        ),
    ),
    "C.8.1": (4, "The vacation request process drawn inside a pool of its own."),
    "C.9.0": (
        4,
        (
            "Customer onboarding: credit score, automatic risk check, a manual check as a call activity with a "
            "fraud boundary event, and event sub-processes for a timeout and a cancellation."
        ),
    ),
    "C.9.1": (
        3,
        "Document request: request a document, wait for the answer with a daily reminder and a one-week timeout.",
    ),
    "C.9.2": (
        4,
        (
            "Manual check of an application with a timeout boundary event and event sub-processes for document "
            "requests, accelerated decisions and fraud checks."
        ),
    ),
}

_KINDS = {
    "task": "task",
    "userTask": "user task",
    "serviceTask": "service task",
    "sendTask": "send task",
    "receiveTask": "receive task",
    "manualTask": "manual task",
    "businessRuleTask": "business rule task",
    "scriptTask": "script task",
    "callActivity": "call activity",
    "subProcess": "sub-process",
    "adHocSubProcess": "ad-hoc sub-process",
    "transaction": "transaction",
    "startEvent": "start event",
    "endEvent": "end event",
    "intermediateCatchEvent": "intermediate catch event",
    "intermediateThrowEvent": "intermediate throw event",
    "boundaryEvent": "boundary event",
    "exclusiveGateway": "exclusive gateway",
    "parallelGateway": "parallel gateway",
    "inclusiveGateway": "inclusive gateway",
    "eventBasedGateway": "event-based gateway",
    "complexGateway": "complex gateway",
}


def walk_model(model: BPMNModel) -> str:
    """A description of every pool, lane, flow node and flow of a model, in flow order."""
    names = _reference_names(model)
    parts = []
    if model.participants:
        pools = ", ".join(f'"{name}"' if name else "an unnamed pool" for name, _ in model.participants.values())
        parts.append(f"Pools: {pools}.")
    if model.lanes:
        parts.append("Lanes: " + ", ".join(f'"{name}"' for name, _ in model.lanes.values()) + ".")
    lanes_of = {ref: name for name, refs in model.lanes.values() for ref in refs}
    graph = model.graph
    flows_from: dict[str, list] = {}
    for flow in graph.resolved:
        flows_from.setdefault(flow.source, []).append(flow)
    for node_id in _flow_order(model):
        node = model.nodes[node_id]
        text = names[node_id][0].upper() + names[node_id][1:]
        if node.category == "event" and node.trigger not in ("none", "reference"):
            text += f" ({node.trigger})"
        if node.container != node.process and node.container in model.nodes:
            text += f" inside {names[node.container]}"
        if node_id in lanes_of and lanes_of[node_id]:
            text += f' in lane "{lanes_of[node_id]}"'
        if node.kind == "boundaryEvent" and node.attached_to in names:
            text += f" is attached to {names[node.attached_to]} and"
        outgoing = flows_from.get(node_id, [])
        if outgoing:
            targets = [
                names[f.target]
                + (f' (flow "{f.name}")' if f.name else "")
                + (" (default)" if f.id == node.default_flow else "")
                for f in outgoing
            ]
            verb = "splits into" if len(targets) > 1 else "leads to"
            text += f" {verb} " + ", ".join(targets)
        else:
            text += " has no outgoing flow"
        parts.append(text + ".")
    for flow in model.message_flows:
        source = names.get(flow.source) or _pool_name(model, flow.source)
        target = names.get(flow.target) or _pool_name(model, flow.target)
        label = f' "{flow.name}"' if flow.name else ""
        parts.append(f"A message flow{label} goes from {source} to {target}.")
    return " ".join(parts)


def _pool_name(model: BPMNModel, ref: str) -> str:
    name = model.participants.get(ref, ("", ""))[0]
    return f'the pool "{name}"' if name else "an unnamed pool"


def _reference_names(model: BPMNModel) -> dict[str, str]:
    """How the walk refers to each node: 'the user task "Approve invoice"' or 'exclusive gateway #2'."""
    counts: dict[str, int] = {}
    names = {}
    for node_id, node in model.nodes.items():
        kind = "event sub-process" if node.triggered_by_event else _KINDS.get(node.kind, node.kind)
        if node.name:
            names[node_id] = f'the {kind} "{node.name}"'
        else:
            counts[kind] = counts.get(kind, 0) + 1
            names[node_id] = f"unnamed {kind} #{counts[kind]}"
    return names


def _flow_order(model: BPMNModel) -> list[str]:
    """Nodes in breadth-first order from the start events, then any not reached."""
    graph = model.graph
    order: list[int] = []
    seen: set[int] = set()
    queue = [i for i, node_id in enumerate(graph.ids) if model.nodes[node_id].kind == "startEvent"]
    queue += [i for i in range(len(graph.ids)) if not graph.pred[i]]
    for i in queue + list(range(len(graph.ids))):
        if i in seen:
            continue
        frontier = [i]
        while frontier:
            j = frontier.pop(0)
            if j in seen:
                continue
            seen.add(j)
            order.append(j)
            frontier.extend(graph.cf_succ[j])
    return [graph.ids[i] for i in order]


def build_tasks() -> tuple[list[dict], dict[str, bytes]]:
    """The task rows and the generated reference files (relative path -> bytes)."""
    rows, files = [], {}
    for number, (slug, level, spec) in enumerate(GENERATED):
        task_id = f"gen-{slug}"
        path = f"references/generated/{slug}.bpmn"
        files[path] = to_bpmn(spec, task_id)
        rows.append(
            {
                "id": task_id,
                "split": "test" if number % 4 == 3 else "train",
                "prompt": f"{INSTRUCTION}\n\n{describe(spec)}",
                "reference": path,
                "difficulty": level,
                "patterns": list(blocks_of(spec)),
                "source": "generated",
            }
        )
    for number, (case, (level, summary)) in enumerate(MIWG_SUMMARIES.items()):
        path = f"references/miwg/{case}.bpmn"
        parsed = read_answer((DATA / path).read_bytes())
        walk = walk_model(extract_model(parsed.root))
        rows.append(
            {
                "id": f"miwg-{case}",
                "split": "test" if number % 4 == 3 else "train",
                "prompt": f"{INSTRUCTION}\n\n{summary} The elements and flows, in order: {walk}",
                "reference": path,
                "difficulty": level,
                "patterns": ["miwg"],
                "source": "miwg",
            }
        )
    return rows, files


def main() -> None:
    """Write ``data/tasks.jsonl`` and ``data/references/generated/*.bpmn``."""
    rows, files = build_tasks()
    for path, data in files.items():
        target = DATA / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    with open(DATA / "tasks.jsonl", "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} tasks and {len(files)} generated references to {DATA}")


if __name__ == "__main__":
    main()
