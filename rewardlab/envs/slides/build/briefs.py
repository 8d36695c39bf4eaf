"""The scenarios behind the shipped briefs: 16 hand-written scenarios, 3 variants each (48 briefs).

A scenario is a presentation situation in one domain (business, science, education,
engineering) with source notes in sections, five key points each backed by one sentence of the
notes, and a small data table. Variants fill the scenario's name slots from a fixed list and
its number slots from a seeded ``random.Random`` (see :mod:`rewardlab.envs.slides.build.generate`), and
rotate audience, tone, slide-count range and the expected visual. ``{kpN}`` in a section marks
where key point N's supporting sentence sits in the notes.

The last scenario of each domain goes to the test split, so test briefs are new situations,
not new numbers in a known one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    key: str
    domain: str
    topic: str
    goal: str
    audiences: tuple[tuple[str, str], ...]
    """(audience, kind) per variant; kind is one of executive, general, student, expert."""
    names: tuple[dict[str, str], ...]
    """String slots per variant."""
    numbers: dict[str, tuple[int, int]]
    """Integer slots: inclusive ranges drawn per variant."""
    key_points: tuple[tuple[str, str], ...]
    """(key point as the brief states it, the sentence of the notes that supports it)."""
    sections: tuple[tuple[str, tuple[str, ...]], ...]
    table: tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]]
    """(caption, columns, rows); cells may hold slots."""
    split: str = "train"


SCENARIOS: tuple[Scenario, ...] = (
    # ------------------------------------------------------------------ business
    Scenario(
        key="retention",
        domain="business",
        topic="{org} customer retention review",
        goal="Win approval to extend the new onboarding programme to every region",
        audiences=(
            ("the executive leadership team", "executive"),
            ("regional sales managers", "general"),
            ("the board of directors", "executive"),
        ),
        names=({"org": "Northwind Software"}, {"org": "Bluepeak Analytics"}, {"org": "Harbor Cloud"}),
        numbers={"old": (7, 9), "new": (4, 6), "nps": (31, 45), "cost": (120, 240), "save": (2, 4), "pilot": (3, 5)},
        key_points=(
            (
                "Monthly churn dropped after the onboarding redesign",
                "Monthly churn fell from {old}% to {new}% after the onboarding redesign.",
            ),
            (
                "Customers who finish onboarding stay much longer",
                "Customers who completed onboarding renewed at twice the rate of those who skipped it.",
            ),
            (
                "Support tickets are the best early warning of churn",
                "Accounts filing three or more tickets in month one churned three times as often.",
            ),
            (
                "The programme pays for itself within a year",
                "The programme costs {cost} thousand dollars a year and retains about {save} million in revenue.",
            ),
            (
                "Rolling out to all regions needs two extra onboarding specialists",
                "A full rollout needs two more onboarding specialists to cover every time zone.",
            ),
        ),
        sections=(
            (
                "Background",
                (
                    "{org} sells subscription analytics to mid-sized retailers.",
                    "Retention became the top priority last year because acquiring a customer costs five times more "
                    "than keeping one.",
                    "The onboarding programme was redesigned around guided setup calls and a thirty-day success plan.",
                    "It was piloted in {pilot} regions before this review.",
                ),
            ),
            (
                "Findings",
                (
                    "{kp0}",
                    "The decline held for three consecutive quarters and was strongest among small accounts.",
                    "{kp1}",
                    "Net promoter score among new customers rose to {nps}.",
                    "{kp2}",
                    "Usage in the first two weeks predicted renewal better than company size or industry.",
                ),
            ),
            (
                "Costs and returns",
                (
                    "{kp3}",
                    "Most of the cost is staff time for setup calls.",
                    "Finance reviewed the figures and considers the estimate conservative.",
                ),
            ),
            (
                "Recommendation",
                (
                    "{kp4}",
                    "The team proposes starting with the largest regions in the next quarter.",
                    "Progress would be reported monthly using churn, ticket volume and promoter score.",
                ),
            ),
        ),
        table=(
            "Churn before and after the redesign",
            ("Segment", "Churn before %", "Churn after %"),
            (("Small accounts", "{old}", "{new}"), ("Large accounts", "5", "4")),
        ),
    ),
    Scenario(
        key="market-entry",
        domain="business",
        topic="Market entry plan for {product} in {market}",
        goal="Decide whether to enter the market next year and with which channel",
        audiences=(
            ("the strategy committee", "executive"),
            ("the product marketing team", "general"),
            ("potential investors", "executive"),
        ),
        names=(
            {"product": "Solace smart thermostats", "market": "Germany"},
            {"product": "Trailhead e-bikes", "market": "the Netherlands"},
            {"product": "Brightleaf meal kits", "market": "Japan"},
        ),
        numbers={"size": (2, 6), "growth": (8, 15), "share": (3, 7), "margin": (18, 30), "months": (9, 14)},
        key_points=(
            (
                "The target market is large and growing fast",
                "The addressable market is worth {size} billion euros and grows {growth}% a year.",
            ),
            (
                "Two incumbents dominate but leave the premium tier open",
                "Two incumbents hold most sales but neither offers a premium product line.",
            ),
            (
                "Partnering with retailers is cheaper than building our own stores",
                "Selling through existing retailers costs less than half of opening own stores.",
            ),
            (
                "A realistic goal is a small share within three years",
                "We expect to reach {share}% market share by the third year.",
            ),
            (
                "The plan breaks even in about a year",
                "The plan reaches break-even after roughly {months} months at a {margin}% gross margin.",
            ),
        ),
        sections=(
            (
                "Market",
                (
                    "{kp0}",
                    "Demand is driven by energy prices and a strong interest in sustainable products.",
                    "Buyers are mostly homeowners aged thirty to fifty with above-average income.",
                    "Local regulation requires product certification, which takes about four months.",
                ),
            ),
            (
                "Competition",
                (
                    "{kp1}",
                    "Price competition in the entry tier is intense and margins there are thin.",
                    "Customer reviews complain about installation support from current brands.",
                ),
            ),
            (
                "Channels",
                (
                    "{kp2}",
                    "An online-only launch would be cheaper still but reaches fewer customers.",
                    "Two national retail chains have already asked for samples.",
                ),
            ),
            (
                "Forecast",
                (
                    "{kp3}",
                    "{kp4}",
                    "The main risks are certification delays and a price war from incumbents.",
                    "A smaller pilot in one city could reduce the risk before a national launch.",
                ),
            ),
        ),
        table=(
            "Channel options",
            ("Channel", "Launch cost (m EUR)", "Reach (%)"),
            (("Retail partners", "3", "60"), ("Own stores", "8", "35"), ("Online only", "1", "25")),
        ),
    ),
    Scenario(
        key="supply-chain",
        domain="business",
        topic="{org} supply chain resilience update",
        goal="Approve funding for a second supplier and a regional warehouse",
        audiences=(
            ("the operations leadership team", "executive"),
            ("procurement staff", "general"),
            ("the chief financial officer", "executive"),
        ),
        names=({"org": "Cedar Home Goods"}, {"org": "Atlas Outdoor"}, {"org": "Meridian Kitchenware"}),
        numbers={"delay": (9, 16), "share": (60, 80), "stock": (11, 19), "cost": (2, 5), "fill": (93, 97)},
        key_points=(
            (
                "Late deliveries rose sharply this year",
                "Average supplier delays grew to {delay} days, double last year's level.",
            ),
            (
                "Relying on one supplier is our biggest risk",
                "A single supplier provides {share}% of our components, so one disruption halts production.",
            ),
            ("Stockouts are costing us sales", "Stockouts hit {stock}% of product lines during the peak season."),
            (
                "A second supplier and a regional warehouse would fix most gaps",
                "Adding a second supplier and a regional warehouse would cut delays by half.",
            ),
            (
                "The investment is modest compared with lost sales",
                "The combined investment is {cost} million dollars, less than one season of lost sales.",
            ),
        ),
        sections=(
            (
                "Situation",
                (
                    "{org} sources most components from overseas factories.",
                    "{kp0}",
                    "Port congestion and a shortage of containers explain most of the delay.",
                    "{kp1}",
                ),
            ),
            (
                "Impact",
                (
                    "{kp2}",
                    "Customers who met a stockout were less likely to order again within six months.",
                    "Expedited shipping to recover orders doubled freight costs in two quarters.",
                ),
            ),
            (
                "Options",
                (
                    "{kp3}",
                    "Holding more safety stock alone would tie up cash and need more space.",
                    "A nearshore supplier has passed our quality audit and can start within a quarter.",
                ),
            ),
            (
                "Proposal",
                (
                    "{kp4}",
                    "The order fill rate target is {fill}% by the end of next year.",
                    "Progress would be tracked through monthly delay and fill rate reports.",
                ),
            ),
        ),
        table=(
            "Delivery performance",
            ("Quarter", "Average delay (days)", "Fill rate (%)"),
            (("Q1", "6", "95"), ("Q2", "9", "92"), ("Q3", "{delay}", "88")),
        ),
    ),
    Scenario(
        key="pricing",
        domain="business",
        topic="Pricing change proposal for {product}",
        goal="Agree on a new tiered price list before the next fiscal year",
        audiences=(
            ("the pricing committee", "executive"),
            ("account managers", "general"),
            ("the chief executive", "executive"),
        ),
        names=(
            {"product": "the Nimbus project management suite"},
            {"product": "the Ledgerly invoicing app"},
            {"product": "the Quill document platform"},
        ),
        numbers={"price": (12, 20), "raise": (10, 18), "loss": (2, 5), "gain": (8, 14), "seats": (40, 70)},
        key_points=(
            (
                "Our price has not changed in years while costs rose",
                "The list price of {price} dollars per seat has stayed the same for four years.",
            ),
            (
                "Large customers would pay more for advanced features",
                "Customers above {seats} seats asked for audit logs and single sign-on.",
            ),
            (
                "A three-tier price list fits our customer segments",
                "A basic, team and enterprise tier would match the three customer groups we serve.",
            ),
            (
                "The change risks only a small loss of customers",
                "Surveys suggest only {loss}% of customers would leave after the change.",
            ),
            (
                "Revenue would grow noticeably after the change",
                "Modelled revenue grows about {gain}% in the first year after the change.",
            ),
        ),
        sections=(
            (
                "Current pricing",
                (
                    "{kp0}",
                    "Hosting and support costs per seat rose by a third over the same period.",
                    "Competitors raised prices twice during that time.",
                ),
            ),
            (
                "Customer research",
                (
                    "Interviews covered forty customers across all sizes.",
                    "{kp1}",
                    "Small teams said price was the main reason they chose our product.",
                    "{kp3}",
                ),
            ),
            (
                "Proposal",
                (
                    "{kp2}",
                    "The basic tier keeps today's price for existing small customers for one year.",
                    "The enterprise tier would cost about {raise}% more than today's price and add premium support.",
                ),
            ),
            (
                "Financial impact",
                (
                    "{kp4}",
                    "The estimate assumes churn stays within the surveyed range.",
                    "Sales would need new material and training before the launch.",
                ),
            ),
        ),
        table=(
            "Proposed tiers",
            ("Tier", "Price per seat ($)", "Main features"),
            (
                ("Basic", "{price}", "Core projects"),
                ("Team", "22", "Reports and automation"),
                ("Enterprise", "30", "Audit logs and single sign-on"),
            ),
        ),
        split="test",
    ),
    # ------------------------------------------------------------------ science
    Scenario(
        key="coral",
        domain="science",
        topic="Coral reef recovery at {site}",
        goal="Secure support for continuing the reef monitoring programme",
        audiences=(
            ("marine biology researchers", "expert"),
            ("a general public audience", "general"),
            ("the funding agency panel", "executive"),
        ),
        names=({"site": "Lizard Island"}, {"site": "Ningaloo Reef"}, {"site": "the Tubbataha atolls"}),
        numbers={"loss": (35, 55), "cover": (15, 30), "years": (5, 8), "temp": (2, 3), "sites": (12, 24)},
        key_points=(
            (
                "A marine heatwave killed a large part of the coral",
                "The heatwave killed {loss}% of live coral cover across the surveyed sites.",
            ),
            (
                "Coral cover is recovering faster than expected",
                "Live coral cover has climbed back to {cover}% within {years} years.",
            ),
            (
                "Fast-growing branching corals lead the recovery",
                "Branching corals recolonised first, while massive corals recover far more slowly.",
            ),
            (
                "Herbivorous fish help the reef recover",
                "Sites with more herbivorous fish had less algae and faster coral recovery.",
            ),
            (
                "Repeated heatwaves threaten the recovery",
                "Another heatwave within a decade could undo the recovery seen so far.",
            ),
        ),
        sections=(
            (
                "Background",
                (
                    "{site} is a long-term monitoring location with surveys since the 1990s.",
                    "Divers record coral cover, fish counts and algae along fixed transects at {sites} sites.",
                    "Water temperatures rose {temp} degrees above the summer average during the event.",
                ),
            ),
            (
                "Results",
                (
                    "{kp0}",
                    "Shallow sites suffered more than deep ones.",
                    "{kp1}",
                    "{kp2}",
                    "Juvenile corals settled in large numbers two years after the event.",
                ),
            ),
            (
                "Drivers",
                (
                    "{kp3}",
                    "Protected zones recovered faster than areas open to fishing.",
                    "Water quality was stable throughout the study period.",
                ),
            ),
            (
                "Outlook",
                (
                    "{kp4}",
                    "Continued surveys are needed to tell lasting recovery from a short rebound.",
                    "The team also plans to test heat-tolerant coral strains in small plots.",
                ),
            ),
        ),
        table=(
            "Coral cover over time",
            ("Year", "Live coral cover (%)"),
            (("Before heatwave", "42"), ("After heatwave", "20"), ("Latest survey", "{cover}")),
        ),
    ),
    Scenario(
        key="vaccine-trial",
        domain="science",
        topic="Phase II results of the {vaccine} vaccine trial",
        goal="Justify moving the vaccine into a phase III trial",
        audiences=(
            ("clinical researchers", "expert"),
            ("the hospital ethics board", "executive"),
            ("public health students", "student"),
        ),
        names=({"vaccine": "RSV-12"}, {"vaccine": "NovaFlu"}, {"vaccine": "HMPV-3"}),
        numbers={"n": (400, 800), "eff": (68, 82), "fever": (4, 9), "months": (6, 12), "sites": (8, 15)},
        key_points=(
            (
                "The trial enrolled a sizeable group of adults",
                "The trial enrolled {n} adults aged sixty and over across {sites} clinics.",
            ),
            (
                "The vaccine prevented most serious infections",
                "The vaccine prevented {eff}% of laboratory-confirmed infections.",
            ),
            (
                "Side effects were mild and short-lived",
                "Only {fever}% of participants had fever, which cleared within two days.",
            ),
            (
                "Protection lasted for at least one season",
                "Antibody levels remained protective for {months} months after a single dose.",
            ),
            (
                "A larger trial is needed to confirm the results",
                "A phase III trial is needed to confirm efficacy and detect rare side effects.",
            ),
        ),
        sections=(
            (
                "Design",
                (
                    "The study was randomised, double-blind and placebo-controlled.",
                    "{kp0}",
                    "Participants received one dose of vaccine or placebo before the winter season.",
                    "Infections were confirmed by laboratory tests on nasal swabs taken at the first sign of symptoms.",
                ),
            ),
            (
                "Efficacy",
                (
                    "{kp1}",
                    "Efficacy was similar in participants with and without chronic lung disease.",
                    "{kp3}",
                ),
            ),
            (
                "Safety",
                (
                    "{kp2}",
                    "Sore arms were the most common complaint.",
                    "No vaccine-related serious adverse events were reported.",
                ),
            ),
            (
                "Next steps",
                (
                    "{kp4}",
                    "The proposed phase III trial would include younger adults with risk factors.",
                    "Manufacturing capacity for the larger trial has been secured.",
                ),
            ),
        ),
        table=(
            "Infections by group",
            ("Group", "Participants", "Confirmed infections"),
            (("Vaccine", "{n}", "9"), ("Placebo", "{n}", "38")),
        ),
    ),
    Scenario(
        key="soil-carbon",
        domain="science",
        topic="Soil carbon under cover cropping in {region}",
        goal="Recommend cover cropping practice to the regional farm advisory service",
        audiences=(
            ("agronomy researchers", "expert"),
            ("farmers and farm advisers", "general"),
            ("agricultural science students", "student"),
        ),
        names=({"region": "the Iowa corn belt"}, {"region": "the Paris basin"}, {"region": "the Murray-Darling basin"}),
        numbers={"farms": (20, 40), "gain": (6, 12), "years": (4, 7), "yield": (1, 3), "erosion": (30, 50)},
        key_points=(
            (
                "The study followed many working farms over several years",
                "We sampled soils on {farms} working farms for {years} years.",
            ),
            (
                "Cover crops increased soil carbon",
                "Fields with cover crops stored {gain}% more soil carbon than bare fields.",
            ),
            ("Crop yields did not suffer", "Main crop yields changed by less than {yield}%, within normal variation."),
            (
                "Cover crops sharply reduced erosion",
                "Soil erosion fell by about {erosion}% on fields with cover crops.",
            ),
            (
                "Gains depend on keeping the practice for years",
                "Carbon gains appeared only after three seasons of continuous cover cropping.",
            ),
        ),
        sections=(
            (
                "Methods",
                (
                    "{kp0}",
                    "Paired fields on each farm were managed the same way except for the cover crop.",
                    "Cores were taken to thirty centimetres depth every spring.",
                ),
            ),
            (
                "Carbon results",
                (
                    "{kp1}",
                    "Most of the extra carbon accumulated in the top ten centimetres.",
                    "{kp4}",
                ),
            ),
            (
                "Farm outcomes",
                (
                    "{kp2}",
                    "{kp3}",
                    "Farmers reported better soil structure and easier spring planting.",
                    "Seed and planting costs were the main expense.",
                ),
            ),
            (
                "Implications",
                (
                    "Cover cropping is a practical option for storing carbon in farmland soils.",
                    "Advisers should encourage multi-year commitments rather than single-season trials.",
                    "Further work will test mixtures of cover crop species.",
                ),
            ),
        ),
        table=(
            "Soil carbon by treatment",
            ("Treatment", "Soil carbon (t/ha)", "Erosion (t/ha)"),
            (("Bare fallow", "48", "6"), ("Cover crop", "53", "3")),
        ),
    ),
    Scenario(
        key="exoplanet",
        domain="science",
        topic="Atmosphere of the exoplanet {planet}",
        goal="Argue for follow-up telescope time to study the planet's atmosphere",
        audiences=(
            ("the telescope time allocation committee", "expert"),
            ("an astronomy club", "general"),
            ("undergraduate physics students", "student"),
        ),
        names=({"planet": "TOI-270 d"}, {"planet": "K2-18 b"}, {"planet": "LHS 1140 b"}),
        numbers={"transits": (3, 6), "temp": (250, 350), "radius": (2, 3), "days": (11, 33), "sigma": (3, 5)},
        key_points=(
            (
                "The planet is a temperate world a few times larger than Earth",
                "The planet is about {radius} times the size of Earth with a temperature near {temp} kelvin.",
            ),
            (
                "We observed the planet passing in front of its star several times",
                "We observed {transits} transits with the space telescope's infrared spectrograph.",
            ),
            (
                "Water vapour was detected in the atmosphere",
                "The spectrum shows water vapour absorption at {sigma} sigma significance.",
            ),
            ("The atmosphere seems rich in hydrogen", "Deep absorption features suggest a hydrogen-rich atmosphere."),
            (
                "More observations could reveal carbon molecules",
                "Four more transits could detect methane and carbon dioxide if present.",
            ),
        ),
        sections=(
            (
                "Target",
                (
                    "{kp0}",
                    "It orbits a quiet red dwarf star every {days} days.",
                    "Quiet host stars make atmospheric signals easier to separate from stellar activity.",
                ),
            ),
            (
                "Observations",
                (
                    "{kp1}",
                    "Each transit lasted under two hours.",
                    "Data were reduced with two independent pipelines that agree.",
                    "Starspots were modelled separately so that they could not mimic an atmospheric signal.",
                ),
            ),
            (
                "Results",
                (
                    "{kp2}",
                    "{kp3}",
                    "Clouds may mute some features at shorter wavelengths.",
                ),
            ),
            (
                "Proposal",
                (
                    "{kp4}",
                    "Such a detection would help tell a water world from a mini gas giant.",
                    "The planet is visible for long windows next cycle.",
                ),
            ),
        ),
        table=(
            "Observation plan",
            ("Instrument", "Transits", "Target molecules"),
            (("Infrared spectrograph", "4", "Methane, carbon dioxide"), ("Near-infrared camera", "2", "Water")),
        ),
        split="test",
    ),
    # ------------------------------------------------------------------ education
    Scenario(
        key="tutoring",
        domain="education",
        topic="Peer tutoring pilot at {school}",
        goal="Convince the school board to fund peer tutoring in every grade",
        audiences=(
            ("the school board", "executive"),
            ("parents of students", "general"),
            ("teachers at the school", "general"),
        ),
        names=({"school": "Riverside Middle School"}, {"school": "Oakridge High"}, {"school": "Lakeview Academy"}),
        numbers={"students": (80, 160), "gain": (9, 15), "attend": (4, 8), "hours": (2, 3), "cost": (15, 30)},
        key_points=(
            (
                "Older students tutored younger ones twice a week",
                "Trained older students tutored {students} younger students twice a week.",
            ),
            (
                "Maths scores improved for tutored students",
                "Tutored students raised their maths scores by {gain} points on average.",
            ),
            (
                "Tutors benefited as much as the tutored students",
                "Tutors also improved their own grades and confidence.",
            ),
            (
                "Attendance improved during the pilot",
                "Attendance among tutored students rose by {attend} percentage points during the pilot.",
            ),
            (
                "Scaling up is affordable",
                "Running the programme in every grade is affordable at about {cost} thousand dollars a year.",
            ),
        ),
        sections=(
            (
                "How it worked",
                (
                    "{school} ran the pilot for one school year.",
                    "{kp0}",
                    "Sessions lasted {hours} hours a week in total and used short structured lesson plans.",
                    "A teacher coordinator trained tutors and checked progress every month.",
                ),
            ),
            (
                "Results",
                (
                    "{kp1}",
                    "The gains were largest for students who started below grade level.",
                    "{kp3}",
                    "{kp2}",
                ),
            ),
            (
                "Feedback",
                (
                    "Parents said their children talked more about school at home.",
                    "Teachers noticed fewer disruptions in class.",
                    "Some tutors found it hard to balance tutoring with their own homework.",
                ),
            ),
            (
                "Next steps",
                (
                    "{kp4}",
                    "Most of the cost is the coordinator's time and training materials.",
                    "The school proposes expanding grade by grade over two years.",
                ),
            ),
        ),
        table=(
            "Maths scores",
            ("Group", "Score before", "Score after"),
            (("Tutored students", "61", "72"), ("Comparison group", "62", "64")),
        ),
    ),
    Scenario(
        key="flipped",
        domain="education",
        topic="Flipped classroom trial in first-year {subject}",
        goal="Decide whether to adopt the flipped format for all first-year sections",
        audiences=(
            ("the faculty curriculum committee", "executive"),
            ("first-year students", "student"),
            ("lecturers in the department", "expert"),
        ),
        names=({"subject": "chemistry"}, {"subject": "statistics"}, {"subject": "economics"}),
        numbers={"pass": (8, 14), "watch": (70, 85), "hours": (1, 2), "sections": (4, 8), "drop": (3, 6)},
        key_points=(
            (
                "Lectures moved online and class time became problem solving",
                "Short lecture videos replaced live lectures, and class time was used for solving problems.",
            ),
            (
                "More students passed the course",
                "The pass rate rose by {pass} percentage points compared with last year.",
            ),
            (
                "Most students watched the videos before class",
                "About {watch}% of students watched the videos before each session.",
            ),
            (
                "Some students struggled with the extra preparation",
                "Students with part-time jobs found weekly preparation hard to keep up.",
            ),
            (
                "Lecturers need time to produce good videos",
                "Producing the videos took each lecturer about {hours} extra hours per week.",
            ),
        ),
        sections=(
            (
                "Design",
                (
                    "The trial ran in {sections} sections of the course last semester.",
                    "{kp0}",
                    "Other sections kept the traditional lecture format as a comparison.",
                ),
            ),
            (
                "Outcomes",
                (
                    "{kp1}",
                    "{kp2}",
                    "Dropout fell by {drop} percentage points in flipped sections.",
                    "Exam questions on applying concepts improved the most.",
                ),
            ),
            (
                "Challenges",
                (
                    "{kp3}",
                    "{kp4}",
                    "A few students missed the live explanations they were used to.",
                ),
            ),
            (
                "Recommendation",
                (
                    "The department recommends adopting the format with optional recorded summaries.",
                    "Video production would be shared across lecturers to reduce the workload.",
                    "Outcomes would be reviewed again after one full year.",
                ),
            ),
        ),
        table=(
            "Results by format",
            ("Format", "Pass rate (%)", "Dropout (%)"),
            (("Flipped", "78", "7"), ("Traditional", "67", "11")),
        ),
    ),
    Scenario(
        key="reading",
        domain="education",
        topic="Early reading programme results in {district}",
        goal="Persuade the district to keep the daily phonics programme",
        audiences=(
            ("district education officials", "executive"),
            ("primary school teachers", "general"),
            ("education students", "student"),
        ),
        names=(
            {"district": "Millbrook District"},
            {"district": "Eastgate County"},
            {"district": "Pine Valley District"},
        ),
        numbers={"schools": (12, 25), "on": (62, 78), "before": (45, 55), "minutes": (20, 30), "books": (3, 6)},
        key_points=(
            (
                "Children practised phonics for a short time every day",
                "Children practised phonics for {minutes} minutes every school day.",
            ),
            (
                "Far more children now read at grade level",
                "The share of children reading at grade level rose from {before}% to {on}%.",
            ),
            ("Struggling readers gained the most", "Children who started furthest behind made the largest gains."),
            (
                "Teacher training was essential",
                "Schools where teachers completed the training saw twice the improvement.",
            ),
            (
                "Reading at home supports the programme",
                "Families received {books} take-home books each term to continue practice.",
            ),
        ),
        sections=(
            (
                "Programme",
                (
                    "The programme started two years ago in {schools} primary schools in {district}.",
                    "{kp0}",
                    "Lessons followed a fixed sequence of sounds and decodable books.",
                ),
            ),
            (
                "Results",
                (
                    "{kp1}",
                    "{kp2}",
                    "Boys and girls improved by similar amounts.",
                ),
            ),
            (
                "What made it work",
                (
                    "{kp3}",
                    "Short daily sessions worked better than longer weekly ones.",
                    "{kp4}",
                    "Libraries extended their opening hours during the holidays.",
                ),
            ),
            (
                "Request",
                (
                    "Funding for the programme ends this year.",
                    "Keeping it requires training for new teachers and replacement books.",
                    "The district is asked to include it in next year's budget.",
                ),
            ),
        ),
        table=(
            "Reading at grade level",
            ("Year", "Children at grade level (%)"),
            (("Before programme", "{before}"), ("Year one", "60"), ("Year two", "{on}")),
        ),
    ),
    Scenario(
        key="coding-club",
        domain="education",
        topic="After-school coding club at {school}",
        goal="Recruit volunteers and sponsors to run the coding club next year",
        audiences=(
            ("local business sponsors", "executive"),
            ("parents and volunteers", "general"),
            ("secondary school students", "student"),
        ),
        names=({"school": "Hillcrest Secondary"}, {"school": "Westbrook School"}, {"school": "Southfield College"}),
        numbers={
            "members": (30, 60),
            "girls": (35, 50),
            "projects": (10, 20),
            "laptops": (15, 30),
            "volunteers": (4, 8),
        },
        key_points=(
            ("The club grew quickly in its first year", "Membership grew to {members} students within the first year."),
            (
                "The club attracted many girls",
                "Girls made up {girls}% of members, far above the national average for computing.",
            ),
            (
                "Students built real projects for the community",
                "Students finished {projects} projects, including a website for the local food bank.",
            ),
            (
                "Old laptops limit what students can do",
                "Only {laptops} laptops are available and many are too slow for modern tools.",
            ),
            (
                "The club needs more volunteer mentors",
                "The club needs at least {volunteers} more volunteer mentors to accept new members.",
            ),
        ),
        sections=(
            (
                "About the club",
                (
                    "The club meets twice a week after school in the library.",
                    "Sessions mix short lessons with time to work on projects in small teams.",
                    "{kp0}",
                    "{kp1}",
                ),
            ),
            (
                "Achievements",
                (
                    "{kp2}",
                    "Two teams reached the regional finals of a coding competition.",
                    "Several members chose computing as an exam subject.",
                ),
            ),
            (
                "Needs",
                (
                    "{kp3}",
                    "{kp4}",
                    "Mentors would commit two hours every other week.",
                    "A waiting list has formed for next year.",
                ),
            ),
            (
                "How to help",
                (
                    "Sponsors can donate equipment or fund a laptop refresh.",
                    "Volunteers with any programming experience are welcome.",
                    "The school provides the space, insurance and a teacher on site.",
                ),
            ),
        ),
        table=(
            "Club growth",
            ("Term", "Members", "Projects finished"),
            (("Autumn", "18", "3"), ("Spring", "31", "7"), ("Summer", "{members}", "{projects}")),
        ),
        split="test",
    ),
    # ------------------------------------------------------------------ engineering
    Scenario(
        key="latency",
        domain="engineering",
        topic="Reducing checkout latency in the {service} service",
        goal="Get agreement to prioritise the caching and database work next quarter",
        audiences=(
            ("the engineering managers", "executive"),
            ("backend engineers", "expert"),
            ("the product owners", "general"),
        ),
        names=({"service": "payments"}, {"service": "orders"}, {"service": "cart"}),
        numbers={"p99": (1200, 1900), "target": (400, 600), "hit": (85, 95), "queries": (30, 60), "loss": (2, 4)},
        key_points=(
            (
                "Slow checkouts are losing us customers",
                "Every extra second at checkout loses about {loss}% of conversions.",
            ),
            (
                "Tail latency is far above our target",
                "The 99th percentile latency is {p99} milliseconds against a target of {target}.",
            ),
            (
                "Most time is spent in repeated database queries",
                "A single checkout issues {queries} database queries, most of them repeated lookups.",
            ),
            (
                "A cache for product data removes most queries",
                "A read-through cache for product data reached a {hit}% hit rate in testing.",
            ),
            (
                "The fix can ship within one quarter",
                "The cache and query batching can ship within one quarter with two engineers.",
            ),
        ),
        sections=(
            (
                "Problem",
                (
                    "Checkout is the slowest step in the {service} flow.",
                    "{kp0}",
                    "{kp1}",
                    "Latency spikes are worst during sales events.",
                ),
            ),
            (
                "Investigation",
                (
                    "Traces were collected from a sample of production requests for two weeks.",
                    "{kp2}",
                    "Network calls to the pricing service add a smaller share.",
                    "Garbage collection pauses were ruled out because they appear in less than one percent of slow "
                    "requests.",
                ),
            ),
            (
                "Solution",
                (
                    "{kp3}",
                    "Batching the remaining queries cuts round trips further.",
                    "Cache invalidation uses the existing product update events.",
                ),
            ),
            (
                "Plan",
                (
                    "{kp4}",
                    "The rollout would start behind a feature flag for ten percent of traffic.",
                    "Dashboards will track latency and error rates during the rollout.",
                ),
            ),
        ),
        table=(
            "Latency by percentile",
            ("Percentile", "Current (ms)", "Target (ms)"),
            (("p50", "310", "200"), ("p95", "900", "450"), ("p99", "{p99}", "{target}")),
        ),
    ),
    Scenario(
        key="bridge",
        domain="engineering",
        topic="Inspection findings for the {bridge}",
        goal="Approve the repair plan and budget for the bridge",
        audiences=(
            ("the city council", "executive"),
            ("structural engineers", "expert"),
            ("residents near the bridge", "general"),
        ),
        names=({"bridge": "Elm Street bridge"}, {"bridge": "Canal Road viaduct"}, {"bridge": "North River crossing"}),
        numbers={"age": (55, 75), "loss": (12, 20), "cost": (3, 7), "weeks": (10, 18), "traffic": (15, 30)},
        key_points=(
            (
                "The bridge is old and carries heavy traffic",
                "The {age}-year-old bridge carries about {traffic} thousand vehicles a day.",
            ),
            (
                "Corrosion has weakened the main steel beams",
                "Corrosion has reduced the steel section of two main girders by up to {loss}%.",
            ),
            (
                "The bridge is safe for now with a weight limit",
                "With a temporary weight limit the bridge remains safe for cars and buses.",
            ),
            (
                "Repairs are far cheaper than replacement",
                "Strengthening the girders would cost {cost} million dollars, a fraction of replacement.",
            ),
            (
                "Repairs would take a few months with lane closures",
                "Repairs would take about {weeks} weeks with one lane closed at a time.",
            ),
        ),
        sections=(
            (
                "Structure",
                (
                    "{kp0}",
                    "It is a steel girder bridge with a concrete deck over three spans.",
                    "The last major inspection took place eight years ago.",
                ),
            ),
            (
                "Findings",
                (
                    "{kp1}",
                    "Drainage failures let salty water reach the steel.",
                    "The concrete deck shows cracking but no loss of strength.",
                ),
            ),
            (
                "Safety",
                (
                    "{kp2}",
                    "Heavy trucks would be diverted to the ring road until repairs finish.",
                    "Sensors will monitor strain on the damaged girders weekly.",
                ),
            ),
            (
                "Repair plan",
                (
                    "{kp3}",
                    "New drainage and protective coating would extend the bridge's life by thirty years.",
                    "{kp4}",
                    "Work would be scheduled outside the school term where possible.",
                ),
            ),
        ),
        table=(
            "Repair options",
            ("Option", "Cost (m $)", "Extra life (years)"),
            (("Strengthen girders", "{cost}", "30"), ("Replace bridge", "40", "75")),
        ),
    ),
    Scenario(
        key="battery",
        domain="engineering",
        topic="Battery pack thermal design for the {vehicle}",
        goal="Choose the cooling design for the next prototype build",
        audiences=(
            ("the vehicle programme leads", "executive"),
            ("battery engineers", "expert"),
            ("engineering students on placement", "student"),
        ),
        names=({"vehicle": "Volta city van"}, {"vehicle": "Aero delivery drone"}, {"vehicle": "Kestrel e-scooter"}),
        numbers={"peak": (52, 60), "limit": (45, 48), "drop": (8, 14), "mass": (3, 6), "life": (15, 25)},
        key_points=(
            (
                "Cells overheat during fast charging",
                "During fast charging the hottest cells reached {peak} degrees, above the {limit} degree limit.",
            ),
            (
                "Liquid cooling keeps cells within limits",
                "A liquid cold plate lowered peak cell temperature by {drop} degrees in bench tests.",
            ),
            (
                "Cooler cells last longer",
                "Keeping cells below the limit extends expected battery life by about {life}%.",
            ),
            ("The liquid system adds some weight", "The liquid system adds {mass} kilograms to the pack."),
            (
                "Liquid cooling is the recommended design",
                "We recommend the liquid cold plate design for the next prototype.",
            ),
        ),
        sections=(
            (
                "Problem",
                (
                    "The current pack uses passive air cooling.",
                    "{kp0}",
                    "Temperature differences between cells also cause uneven ageing.",
                ),
            ),
            (
                "Options tested",
                (
                    "Three designs were tested: improved air ducts, phase-change material and a liquid cold plate.",
                    "{kp1}",
                    "Improved ducts helped only slightly at high charge rates.",
                    "Phase-change material worked for short charges but saturated on long ones.",
                ),
            ),
            (
                "Trade-offs",
                (
                    "{kp3}",
                    "The pump draws little power compared with the drive motor.",
                    "{kp2}",
                ),
            ),
            (
                "Recommendation",
                (
                    "{kp4}",
                    "Leak testing and crash safety of the coolant lines are the main open risks.",
                    "The prototype build would start next month.",
                ),
            ),
        ),
        table=(
            "Cooling options",
            ("Design", "Peak cell temperature (C)", "Added mass (kg)"),
            (("Air ducts", "54", "1"), ("Phase-change", "50", "4"), ("Liquid cold plate", "44", "{mass}")),
        ),
    ),
    Scenario(
        key="water-treatment",
        domain="engineering",
        topic="Upgrade options for the {plant} water treatment plant",
        goal="Select an upgrade option for the treatment plant",
        audiences=(
            ("the utility board", "executive"),
            ("process engineers", "expert"),
            ("community representatives", "general"),
        ),
        names=({"plant": "Greenfield"}, {"plant": "Stonebridge"}, {"plant": "Clearwater"}),
        numbers={"flow": (40, 70), "growth": (20, 35), "cost": (18, 30), "energy": (15, 25), "years": (3, 5)},
        key_points=(
            (
                "Demand will soon exceed the plant's capacity",
                "Demand is forecast to grow {growth}% and exceed capacity within {years} years.",
            ),
            ("Stricter discharge limits are coming", "New rules will tighten nitrogen limits on discharged water."),
            (
                "A membrane upgrade meets both needs",
                "A membrane bioreactor upgrade adds capacity and meets the new nitrogen limits.",
            ),
            (
                "The upgrade saves energy over its life",
                "The membrane option uses {energy}% less energy than building a second plant.",
            ),
            (
                "Construction can happen while the plant keeps running",
                "The upgrade can be built in stages without stopping treatment.",
            ),
        ),
        sections=(
            (
                "Current plant",
                (
                    "The plant treats about {flow} million litres of wastewater per day.",
                    "{kp0}",
                    "Parts of the equipment date from the 1980s.",
                    "Storm events already push the plant close to its hydraulic limit several times a year.",
                ),
            ),
            (
                "Regulation",
                (
                    "{kp1}",
                    "The current process cannot reach those limits reliably.",
                    "Fines for breaches would rise each year.",
                ),
            ),
            (
                "Options",
                (
                    "Engineers compared three options: expand the current process, build a second plant, or install "
                    "membranes.",
                    "{kp2}",
                    "Expanding the current process needs more land than is available.",
                    "{kp3}",
                ),
            ),
            (
                "Delivery",
                (
                    "The membrane option would cost about {cost} million dollars.",
                    "{kp4}",
                    "Operators would receive training from the equipment supplier.",
                ),
            ),
        ),
        table=(
            "Upgrade options",
            ("Option", "Cost (m $)", "Meets nitrogen limit"),
            (
                ("Expand current process", "15", "No"),
                ("Second plant", "35", "Yes"),
                ("Membrane upgrade", "{cost}", "Yes"),
            ),
        ),
        split="test",
    ),
)

TONES: tuple[str, ...] = ("formal", "conversational", "technical")
VISUALS: tuple[str, ...] = ("table", "chart", "none")
SLIDE_RANGES: tuple[tuple[int, int], ...] = ((6, 10), (7, 12), (5, 9))

DOMAIN_SECTIONS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "business": (
        (
            "About these notes",
            (
                "These notes were compiled by the analysis team for the review meeting on the {topic_lower}.",
                "Figures come from the finance system, the customer database and interviews held over the last two "
                "quarters.",
                "All amounts are in nominal terms and have not been adjusted for inflation.",
                "Numbers were checked by a second analyst, and rounding may make some totals differ slightly.",
            ),
        ),
        (
            "Open questions",
            (
                "The team has not yet modelled what happens if the economy slows down next year.",
                "Competitors could respond quickly, and their reaction is hard to predict from public information.",
                "Some managers asked whether existing staff can absorb the extra work without hiring.",
                "Legal has been asked to review any contract changes before a final decision is taken.",
                "A follow-up review in six months would show whether the expected benefits appear.",
            ),
        ),
    ),
    "science": (
        (
            "About these notes",
            (
                "These notes summarise the study behind the {topic_lower} for the upcoming presentation.",
                "They draw on the project's field records, laboratory results and a draft manuscript under review.",
                "Uncertainty ranges are reported in the manuscript and are omitted here for brevity.",
                "Statistical analyses were pre-registered, and the code is available in the project repository.",
            ),
        ),
        (
            "Limitations and open questions",
            (
                "The study covers a limited period, and longer records would strengthen the conclusions.",
                "Some measurements were missed during bad weather or equipment failures, leaving small gaps in the "
                "data.",
                "Results from one setting may not transfer directly to other regions or populations.",
                "Independent replication by another team would increase confidence in the main findings.",
                "The team is preparing a data paper so that others can reuse the measurements.",
            ),
        ),
    ),
    "education": (
        (
            "About these notes",
            (
                "These notes were prepared for a presentation on the {topic_lower}.",
                "They combine assessment data, attendance records, surveys and interviews with staff and families.",
                "Student data were anonymised, and results are reported for groups rather than individuals.",
                "Comparison groups were similar in age and prior attainment but were not randomly assigned.",
            ),
        ),
        (
            "Open questions",
            (
                "It is not yet clear whether the gains will last once students move to the next stage.",
                "Staff turnover could make it hard to keep the programme running the same way.",
                "Some families could not be reached for the survey, so their views are missing.",
                "An external evaluator has offered to review the results next year.",
                "The team would like to share materials with nearby schools if the approach continues to work.",
            ),
        ),
    ),
    "engineering": (
        (
            "About these notes",
            (
                "These notes were written by the project engineers for the review of the {topic_lower}.",
                "They are based on measurements, test reports, design calculations and discussions with operators.",
                "All figures are preliminary until the detailed design review is complete.",
                "Assumptions and calculation sheets are stored with the project documentation.",
            ),
        ),
        (
            "Risks and open questions",
            (
                "Supplier lead times for key components could delay the schedule.",
                "The estimates include a contingency, but unexpected findings during the work could raise costs.",
                "Operators asked for training before any change goes live.",
                "Safety and regulatory approvals must be confirmed before work starts.",
                "A post-implementation review is planned to check the results against these estimates.",
            ),
        ),
    ),
}
"""Sections every scenario of a domain adds to its notes: provenance and open questions.

They carry no key point; they make the notes realistic and give the content reward sentences a
deck should not need."""
