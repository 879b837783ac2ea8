from common import *
from sqls import Q

CASES = [
case(73, ["question-echo", "derived-sum", "derived-share", "sql-units", "prose"],
     "We had 960 claims in 2024 — how many of them were in the Southeast and the Northeast?",
     [sql(Q["region_claims_2024"])],
     "Of the 960 claims opened in 2024, 213 were in the Southeast and 202 in the Northeast — 415 together, "
     "or 43% of the 960. Southwest was the smallest region at 166.",
     [S("960", "sum of the regions = 960 (echoed from the question, stated as a value)", ("num", 960), "Of the 960"),
      N("2024", "period qualifier"), S("213", "Southeast 213", ("num", 213)), S("202", "Northeast 202", ("num", 202), "and 202"),
      S("415", "213 + 202 = 415", ("num", 415)), S("43%", "415 / 960 = 43.2%", ("num", 43.23)),
      S("960", "sum of the regions = 960", ("num", 960), "of the 960."),
      S("Southwest was the smallest region", "166 is the fewest", ("rank", True)), S("166", "Southwest 166", ("num", 166))]),

case(74, ["question-echo", "row-shaped", "ranking", "duration", "not-a-claim", "prose"],
     "Is it true that Maria Lopez handled 101 claims opened in 2025, more than any other adjuster?",
     [kpi("adjuster_workload", year=2025)],
     "Yes — Maria Lopez (ADJ-101) handled 101 claims opened in 2025, the most of any adjuster; Robert King is next with 75. "
     "She has settled 87 of them, in 32.8 days on average, and paid $413.8K of indemnity.",
     [N("ADJ-101", "adjuster id"), S("101", "ADJ-101 claims_handled 101 (echoed from the question, stated as a value)", ("num", 101), "handled 101"),
      N("2025", "period qualifier"), S("the most of any adjuster", "101 is the highest", ("rank", True)),
      S("75", "ADJ-104 claims_handled 75", ("num", 75)), S("87", "ADJ-101 settled 87", ("num", 87)),
      S("32.8 days", "ADJ-101 32.77 days", ("num", 32.77)), S("$413.8K", "ADJ-101 413,765", ("num", 413765.34))]),

case(75, ["question-echo", "level", "attached-unit", "sql-units", "prose"],
     "The dashboard says 84 claims are open and 41 of them are High or Severe. Can you confirm, and what reserve do the open claims carry?",
     [sql(Q["severe_open_2025"])],
     "Confirmed: 84 open claims, of which 41 are High or Severe. The open book carries $1.41M of initial reserve, "
     "roughly $16.8K per claim.",
     [S("84", "open_claims 84 (echoed from the question, stated as a value)", ("num", 84)),
      S("41", "open_high_severe 41 (echoed, stated as a value)", ("num", 41), "which 41"),
      C("$1.41M", "open_reserve 1,137,490 (digits swapped)", ("num", 1137490)),
      C("roughly $16.8K", "1,137,490 / 84 = 13,542", ("hedge", 13541.55))]),
]
