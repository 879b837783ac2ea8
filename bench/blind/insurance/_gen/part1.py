from common import *

CASES = [
case(1, ["level", "derived-sum", "derived-growth", "hedge", "not-a-claim", "bullets"],
     "How many claims did we open in each accident year 2023, 2024 and 2025?",
     [kpil("claim_count", "2023", year=2023), kpil("claim_count", "2024", year=2024), kpil("claim_count", "2025", year=2025)],
     "Claims opened by accident year:\n\n- **2023:** 765\n- **2024:** 960\n- **2025:** 802\n\n"
     "That's 2,527 claims over the three years. Volume jumped 25.5% from 2023 to 2024, then fell back about 16% in 2025. For context, 2022 had 690 claims.",
     [N("2023", "row label (year)", "**2023:**"), S("765", "claim_count 2023 = 765", ("num", 765)),
      N("2024", "row label (year)", "**2024:**"), S("960", "claim_count 2024 = 960", ("num", 960)),
      N("2025", "row label (year)", "**2025:**"), S("802", "claim_count 2025 = 802", ("num", 802)),
      S("2,527", "765 + 960 + 802 = 2,527", ("num", 2527)),
      S("25.5%", "(960 - 765) / 765 = 25.49%", ("num", 25.49)),
      N("2023 to 2024", "period qualifier"),
      S("about 16%", "(802 - 960) / 960 = -16.46%; stated as a fall, hedged 14.5-17.5", ("hedge", 16.46)),
      N("2025", "period qualifier", "16% in 2025"), N("2022", "period qualifier"), U("690", "2022 is not among the references")]),

case(2, ["level", "signed-comparison", "derived-one-in-n", "hedge", "prose"],
     "What was our claim frequency in 2024 and how does it compare with 2023?",
     [kpil("claim_frequency", "2024", year=2024), kpil("claim_frequency", "2023", year=2023),
      kpil("policies_in_force", "policies in force 2024", year=2024), kpil("claim_count", "claims 2024", year=2024)],
     "Claim frequency in 2024 was 13.4 claims per 100 policies in force (960 claims on 7,230 policy terms), "
     "+0.6 points versus 2023's 12.7%. So broadly flat — roughly 1 in 8 policies produced a claim.",
     [N("2024", "period qualifier", "frequency in 2024"), C("13.4", "claim_frequency 2024 = 13.11%", ("num", 13.11)),
      N("100", "scale anchor (per 100 policies)"), S("960", "claim_count 2024 = 960", ("num", 960)),
      C("7,230", "policies_in_force 2024 = 7,320 (digits swapped)", ("num", 7320)),
      C("+0.6 points", "13.11 - 12.71 = +0.41 points; 0.6 is outside 0.55-0.65", ("num", 0.405)),
      N("2023", "period qualifier", "2023's"), S("12.7%", "claim_frequency 2023 = 12.71%", ("num", 12.71)),
      S("roughly 1 in 8", "1 / 0.1311 = 7.6 -> 8", ("onein", 8, 7.63))]),

case(3, ["level", "hedge", "attached-unit", "prose"],
     "What was the loss ratio for the 2024 accident year?",
     [kpi("loss_ratio", year=2024), kpil("total_paid", "indemnity paid", year=2024),
      {"core_node": "written_premium", "params": {"year": 2024}, "label": "written premium"}],
     "The 2024 accident-year loss ratio came in at around 78% — $4.76M of indemnity against $6.1M of written premium. "
     "That's well above the 65% target in the plan.",
     [N("2024", "period qualifier"), S("around 78%", "loss_ratio 2024 = 77.85%; hedged 76.5-79.5", ("hedge", 77.85)),
      S("$4.76M", "total_paid 2024 = $4,761,423", ("num", 4761422.71)),
      S("$6.1M", "written_premium 2024 = $6,115,868", ("num", 6115868.37)),
      U("65%", "a plan target; no reference holds it")]),

case(4, ["derived-growth", "hedge", "attached-unit", "prose"],
     "How did paid losses change between the 2024 and 2025 accident years?",
     [kpil("total_paid", "2024", year=2024), kpil("total_paid", "2025", year=2025)],
     "Paid indemnity on 2025 claims was $4.1M, down from $4.8M on the 2024 accident year — a drop of roughly 13%. "
     "Bear in mind 2025 is still developing: 84 claims from that year remain open.",
     [N("2025", "period qualifier", "on 2025 claims"), S("$4.1M", "total_paid 2025 = $4,132,936", ("num", 4132935.52)),
      S("$4.8M", "total_paid 2024 = $4,761,423", ("num", 4761422.71)),
      N("2024", "period qualifier"),
      S("roughly 13%", "(4.133 - 4.761) / 4.761 = -13.2%; stated as a drop", ("hedge", 13.2)),
      N("2025", "period qualifier", "2025 is still"),
      U("84", "open claims of 2025; the references hold paid amounts only")]),

case(5, ["duration", "hedge", "level", "prose"],
     "What was the average settlement time for claims opened in 2024?",
     [kpi("avg_settlement_hours", year=2024)],
     "Settled 2024 claims took 924 hours on average from first notice to close — about 38.5 days, "
     "or roughly five and a half weeks. Denied and still-open claims are excluded. The industry benchmark we track is 30 days.",
     [N("2024", "period qualifier"), S("924 hours", "avg_settlement_hours 2024 = 924.37 h", ("num", 924.37)),
      S("about 38.5 days", "924.37 h = 38.52 days; hedged 38.35-38.65", ("hedge", 38.515)),
      S("five and a half weeks", "924.37 h = 5.50 weeks (number words, hedged)", ("rank", True)),
      U("30 days", "an external benchmark; not in the references")]),

case(6, ["duration", "row-shaped", "derived-ratio", "hedge", "bullets"],
     "How long does settlement take by severity band for 2024 claims?",
     [kpi("settlement_days_by_severity", year=2024)],
     "Average days to settle, 2024 accident year:\n\n- Low: 14.1 days\n- Medium: 32.8 days\n- High: 80 days\n"
     "- Severe: 158 days (about 22.6 weeks)\n\nSevere claims take more than 11x as long as Low ones (in 2023 Low claims took 12.6 days).",
     [N("2024", "period qualifier"), S("14.1", "Low = 14.11 days", ("num", 14.11)),
      S("32.8", "Medium = 32.82 days", ("num", 32.82)), S("80 days", "High = 80.26 days", ("num", 80.26)),
      S("158 days", "Severe = 158.13 days", ("num", 158.13)),
      S("about 22.6 weeks", "158.13 days = 22.59 weeks", ("hedge", 22.59)),
      S("11x", "158.13 / 14.11 = 11.2, more than 11", ("gt", 11.21)), N("2023", "period qualifier"), U("12.6 days", "2023 is not among the references")]),

case(7, ["derived-one-in-n", "derived-x-out-of-y", "level", "hedge", "prose"],
     "What share of settled claims get reopened? Compare 2024 with 2023.",
     [kpil("reopen_rate", "2024", year=2024), kpil("reopen_rate", "2023", year=2023)],
     "About one in 11 settled 2024 claims was reopened (8.9%), compared with 7.5% for 2023 — "
     "roughly 9 out of every 100 now, against 7 out of 100 a year earlier. Our target is below 6%.",
     [S("one in 11", "reopen_rate 2024 = 8.95% -> 1 in 11.2", ("onein", 11, 11.18)),
      N("2024", "period qualifier"), S("8.9%", "reopen_rate 2024 = 8.947%", ("num", 8.947)),
      S("7.5%", "reopen_rate 2023 = 7.49%", ("num", 7.486)), N("2023", "period qualifier"),
      S("9 out of every 100", "100 x 0.0895 = 8.9 -> 9", ("xofy", 9, 8.95)),
      S("7 out of 100", "100 x 0.0749 = 7.5 -> 7 (7.49 rounds to 7)", ("xofy", 7, 7.486)), U("below 6%", "a target; not in the references")]),

case(8, ["level", "derived-one-in-n", "signed-comparison", "prose"],
     "What was the denial rate in 2025, and is it up on 2024?",
     [kpil("denial_rate", "2025", year=2025), kpil("denial_rate", "2024", year=2024)],
     "Denials ran at 8.1% of decided 2025 claims — one in 10. That is 0.5 points higher than 2024 (8.2%).",
     [S("8.1%", "denial_rate 2025 = 8.08%", ("num", 8.078)), N("2025", "period qualifier"),
      C("one in 10", "1 / 0.0808 = 12.4 -> one in 12, not 10", ("onein", 10, 12.38)),
      C("0.5 points higher", "8.078 - 8.021 = +0.06 points", ("num", 0.057)),
      N("2024", "period qualifier"), C("8.2%", "denial_rate 2024 = 8.02%", ("num", 8.021))]),

case(9, ["row-shaped", "table", "ranking", "duration", "attached-unit", "not-a-claim"],
     "Which five adjusters handled the most 2024 claims? Show claims handled, settled claims, average days to settle and indemnity paid.",
     [kpi("adjuster_workload", year=2024)],
     "| Adjuster | Claims handled | Settled | Avg. days to settle | Indemnity paid |\n|---|---|---|---|---|\n"
     "| Robert King (ADJ-104) | 94 | 91 | 39.6 | $360.9K |\n"
     "| Maria Lopez (ADJ-101) | 91 | 87 | 34.9 | $428.6K |\n"
     "| Carlos Mendez (ADJ-110) | 89 | 84 | 29.0 | $352.7K |\n"
     "| Linda Novak (ADJ-107) | 85 | 77 | 37.9 | $342.9K |\n"
     "| Ethan Walsh (ADJ-112) | 87 | 72 | 33.7 | $365.8K |\n\n"
     "Robert King handled the most claims, and Carlos Mendez closed his fastest. In 2023 Maria Lopez topped the list with 71.",
     [N("104", "adjuster id", "ADJ-104"), S("94", "ADJ-104 claims_handled 94", ("num", 94), "| 94 | 91 |"),
      S("91", "ADJ-104 settled 91", ("num", 91), "| 94 | 91 |"), C("39.6", "ADJ-104 avg 36.89 days (digits swapped)", ("num", 36.89)),
      S("$360.9K", "ADJ-104 indemnity 360,853", ("num", 360853.49)),
      N("101", "adjuster id", "ADJ-101"), S("91", "ADJ-101 claims_handled 91", ("num", 91), "| 91 | 87 |"),
      S("87", "ADJ-101 settled 87", ("num", 87), "| 91 | 87 |"), S("34.9", "ADJ-101 34.92 days", ("num", 34.92)),
      C("$428.6K", "ADJ-101 indemnity is 482,612 (digits swapped, 11% low)", ("num", 482611.59)),
      N("110", "adjuster id", "ADJ-110"), S("89", "ADJ-110 claims 89", ("num", 89)), C("84", "ADJ-110 settled 81, not 84", ("num", 81)),
      S("29.0", "ADJ-110 28.98 days", ("num", 28.98)), C("$352.7K", "ADJ-110 indemnity 325,679 (8% off)", ("num", 325678.5)),
      N("107", "adjuster id", "ADJ-107"), S("85", "ADJ-107 claims 85", ("num", 85)),
      C("77", "ADJ-107 settled 71, not 77", ("num", 71)), S("37.9", "ADJ-107 37.89 days", ("num", 37.89)),
      S("$342.9K", "ADJ-107 indemnity 342,867", ("num", 342867.32)),
      N("112", "adjuster id", "ADJ-112"), C("87", "ADJ-112 handled 78, not 87", ("num", 78), "| 87 | 72 |"), S("72", "ADJ-112 settled 72", ("num", 72)),
      C("33.7", "ADJ-112 37.70 days", ("num", 37.70)), S("$365.8K", "ADJ-112 indemnity 365,763", ("num", 365763.11)),
      S("Robert King handled the most claims", "94 is the highest claims_handled", ("rank", True)),
      S("Carlos Mendez closed his fastest", "28.98 days is the lowest of the five (and of all 14)", ("rank", True)), N("2023", "period qualifier"), U("71", "2023 is not in the reference")]),

case(10, ["row-shaped", "bullets", "ranking", "duration", "attached-unit", "hedge"],
     "Give me the 2023 regional picture: claims, indemnity paid, loss ratio and settlement time per region.",
     [kpi("region_summary", year=2023)],
     "2023 accident year by region:\n\n"
     "- **Northeast** — 179 claims, $1.29M paid, loss ratio 78.9%, 34.8 days to settle\n"
     "- **Southeast** — 177 claims, $1.10M paid, loss ratio 69.9%, about 39 days\n"
     "- **Midwest** — 168 claims, $652K paid, 55.2% loss ratio, settles in 28.8 days\n"
     "- **Pacific** — 135 claims, $584K paid, 41.8%, 30 days\n"
     "- **Southwest** — 121 claims, $444K, 45.6%, 33.7 days\n\n"
     "Northeast carried the highest loss ratio; Midwest settled fastest.",
     [N("2023", "period qualifier"),
      S("179", "Northeast claims 179", ("num", 179)), S("$1.29M", "Northeast paid 1,292,051", ("num", 1292050.81)),
      S("78.9%", "Northeast 78.90%", ("num", 78.90)), C("34.8", "Northeast 38.40 days (digits swapped)", ("num", 38.40)),
      C("177", "Southeast claims 171", ("num", 171)), C("$1.10M", "Southeast paid 1,012,584 (9% off)", ("num", 1012583.72)),
      S("69.9%", "Southeast 69.88%", ("num", 69.88)), S("about 39 days", "Southeast 38.85 days", ("hedge", 38.85)),
      S("168", "Midwest claims 168", ("num", 168)), C("$652K", "Midwest paid 625,276 (4% off)", ("num", 625275.74)),
      C("55.2%", "Midwest 53.20%", ("num", 53.20)), S("28.8", "Midwest 28.84 days", ("num", 28.84)),
      S("135", "Pacific claims 135", ("num", 135)), S("$584K", "Pacific paid 584,259", ("num", 584259.43)),
      C("41.8%", "Pacific 48.07% (13% off)", ("num", 48.07)), S("30 days", "Pacific 29.85 days", ("num", 29.85)),
      C("121", "Southwest claims 112, not 121", ("num", 112)), S("$444K", "Southwest paid 444,331", ("num", 444331.16)),
      S("45.6%", "Southwest 45.59%", ("num", 45.59)), S("33.7", "Southwest 33.68 days", ("num", 33.68)),
      S("Northeast carried the highest loss ratio", "78.90% is the highest", ("rank", True)),
      S("Midwest settled fastest", "28.84 days is the lowest", ("rank", True))]),

case(11, ["date-row-label", "table", "ranking", "derived-sum", "row-shaped"],
     "Show monthly claim counts for the first half of 2024, with the number of High or Severe claims.",
     [kpi("monthly_claims", year=2024)],
     "| Month | Claims opened | High/Severe |\n|---|---|---|\n"
     "| January 2024 | 79 | 19 |\n| February 2024 | 73 | 17 |\n| March 2024 | 87 | 14 |\n"
     "| April 2024 | 64 | 16 |\n| May 2024 | 96 | 19 |\n| June 2024 | 71 | 11 |\n\n"
     "H1 total: 470 claims (H1 2023 had 323). May was the busiest month and April the quietest.",
     [N("2024", "row label", "January 2024"), S("79", "2024-01-01 claims_opened 79", ("num", 79)),
      S("19", "2024-01-01 high_severity 19", ("num", 19), "| 79 | 19 |"),
      N("2024", "row label", "February 2024"), S("73", "2024-02-01 73", ("num", 73)), S("17", "2024-02-01 high 17", ("num", 17)),
      N("2024", "row label", "March 2024"), S("87", "2024-03-01 87", ("num", 87)), S("14", "2024-03-01 high 14", ("num", 14)),
      N("2024", "row label", "April 2024"), S("64", "2024-04-01 64", ("num", 64)), S("16", "2024-04-01 high 16", ("num", 16)),
      N("2024", "row label", "May 2024"), S("96", "2024-05-01 96", ("num", 96)),
      S("19", "2024-05-01 high 19", ("num", 19), "| 96 | 19 |"),
      N("2024", "row label", "June 2024"), S("71", "2024-06-01 71", ("num", 71)), S("11", "2024-06-01 high 11", ("num", 11)),
      N("1", "period label H1", "H1 total"), S("470", "79+73+87+64+96+71 = 470", ("num", 470)), N("H1 2023", "period label"), U("323", "2023 is not in the reference"),
      S("May was the busiest month", "96 is the most in H1 (and in all of 2024)", ("rank", True)),
      S("April the quietest", "64 is the fewest", ("rank", True))]),

case(12, ["date-row-label", "bullets", "derived-sum", "ranking", "attached-unit"],
     "How many claims were opened each week in March 2025 (weeks 3–30 March), and what was the average initial reserve?",
     [kpi("weekly_claims", start_date="2025-03-03", end_date="2025-03-30")],
     "Week by week (weeks starting Monday):\n\n"
     "- Week of 3 March: 13 new claims, average initial reserve $4,136\n"
     "- Week of 10 March: 17 claims, $3,460 average reserve\n"
     "- Week of 17 March: 23 claims — the busiest week — with reserves averaging $7.2K\n"
     "- Week of 24 March: 15 claims, $8,023\n\n"
     "In total 68 claims were opened over those weeks.",
     [N("3 March", "week label (2025-03-03)"), S("13", "week 2025-03-03: 13", ("num", 13), "13 new claims"),
      C("$4,136", "2025-03-03 avg reserve 4,316.15", ("num", 4316.15)),
      N("10 March", "week label"), S("17", "week 2025-03-10: 17", ("num", 17), "17 claims"),
      C("$3,460", "2025-03-10 avg reserve 3,045.88", ("num", 3045.88)),
      N("17 March", "week label"), S("23", "week 2025-03-17: 23", ("num", 23), "23 claims"),
      S("the busiest week", "23 is the most of the four", ("rank", True)),
      S("$7.2K", "2025-03-17 avg reserve 7,219.57", ("num", 7219.57)),
      N("24 March", "week label"), C("15", "week 2025-03-24: 13, not 15", ("num", 13)),
      S("$8,023", "2025-03-24 avg reserve 8,023.08", ("num", 8023.08)),
      C("68", "13+17+23+13 = 66", ("num", 66))]),

case(13, ["level", "hedge", "derived-difference", "prose"],
     "What was the claims-per-adjuster load for 2024 versus 2025?",
     [kpil("claims_per_adjuster", "2024", year=2024), kpil("claims_per_adjuster", "2025", year=2025)],
     "Each adjuster carried roughly 69 claims from the 2024 accident year and about 57 from 2025 — around 11 fewer per head. "
     "With 14 adjusters on staff, that is still a heavy book.",
     [S("roughly 69", "claims_per_adjuster 2024 = 68.57", ("hedge", 68.57)), N("2024", "period qualifier"),
      S("about 57", "claims_per_adjuster 2025 = 57.29", ("hedge", 57.29)), N("2025", "period qualifier"),
      S("around 11", "68.57 - 57.29 = 11.29 fewer", ("hedge", 11.29)),
      U("14", "adjuster head count; the references hold only the ratio")]),

case(14, ["level", "derived-growth", "not-a-claim", "prose"],
     "How many claims were open at the end of June 2025, compared with the end of 2024?",
     [kpil("open_claims", "30 June 2025", as_of="2025-06-30"), kpil("open_claims", "31 December 2024", as_of="2024-12-31")],
     "As of 30 June 2025 there were 78 open claims on the books, down from 100 at 31 December 2024 — "
     "a 22% reduction in the open inventory. The backlog then crept back up to 84 by year-end 2025. Roughly 1,650 claims were settled in between.",
     [N("30 June 2025", "date qualifier"), S("78", "open_claims 2025-06-30 = 78", ("num", 78)),
      S("100", "open_claims 2024-12-31 = 100", ("num", 100)), N("31 December 2024", "date qualifier"),
      S("22%", "(78 - 100) / 100 = -22%", ("num", 22)),
      U("84", "year-end 2025 is not among the references"), N("2025", "date qualifier", "year-end 2025"), U("Roughly 1,650", "settled counts are not in the references")]),

case(15, ["level", "derived-share", "derived-sum", "not-a-claim", "prose"],
     "Which products generated the most claims in 2024?",
     [kpi("claims_by_product", year=2024)],
     "Auto 360 generated the most 2024 claims (274), followed by Fleet 25 (203) and Auto Lite 120 (183). "
     "Auto 360 alone accounts for 28.5% of the 960 claims across all products. At the other end, "
     "Renters 100 had just 22 and Business Owner 2000 had 28. Fleet 25 claims alone cost us $1.24M.",
     [N("360", "product name", "Auto 360 generated"), N("2024", "period qualifier"),
      S("274", "Auto 360 = 274", ("num", 274)), N("25", "product name", "Fleet 25 (203)"), S("203", "Fleet 25 = 203", ("num", 203)),
      N("120", "product name", "Lite 120"), S("183", "Auto Lite 120 = 183", ("num", 183)),
      N("360", "product name", "Auto 360 alone"), S("28.5%", "274 / 960 = 28.54%", ("num", 28.54)),
      S("960", "sum of the mapping = 960", ("num", 960)),
      N("100", "product name", "Renters 100"), S("22", "Renters 100 = 22", ("num", 22)),
      N("2000", "product name", "Owner 2000"), S("28", "Business Owner 2000 = 28", ("num", 28), "had 28"), N("25", "product name", "Fleet 25 claims"), U("$1.24M", "paid amounts are not in the reference")]),

case(16, ["level", "signed-comparison", "prose"],
     "How did paid amounts compare with initial case reserves on settled claims, 2025 versus 2024?",
     [kpil("paid_to_reserve", "2025", year=2025), kpil("paid_to_reserve", "2024", year=2024)],
     "For settled 2025 claims we paid 108% of the initial case reserve, versus 93.5% for 2024 — a swing of +14.6 points, "
     "so reserves set in 2025 are running thin against our 95–105% reserving corridor.",
     [N("2025", "period qualifier", "settled 2025 claims"), S("108%", "paid_to_reserve 2025 = 108.12%", ("num", 108.12)),
      S("93.5%", "paid_to_reserve 2024 = 93.53%", ("num", 93.53)), N("2024", "period qualifier"),
      S("+14.6 points", "108.12 - 93.53 = 14.59", ("num", 14.587)), N("2025", "period qualifier", "set in 2025"), U("95–105%", "a policy corridor; not in the references")]),

case(17, ["level", "derived-x-out-of-y", "derived-one-in-n", "not-a-claim", "prose"],
     "How many large losses did we have in 2024, and how common are they?",
     [kpil("claim_count", "2024 claims", year=2024), {"decision": "large_loss_count", "params": {"year": 2024}, "label": "large losses 2024"},
      {"decision": "large_loss_count", "params": {"year": 2025}, "label": "large losses 2025"}],
     "39 claims opened in 2024 crossed the $25,000 large-loss threshold — about 4 out of every 100 claims, or one in 25. "
     "The count eased to 35 in 2025. The average large loss paid out about $41K.",
     [S("39", "large_loss_count 2024 = 39", ("num", 39)), N("2024", "period qualifier"),
      N("$25,000", "threshold from the definition"),
      S("4 out of every 100", "100 x 39 / 960 = 4.06 -> 4", ("xofy", 4, 4.06)),
      S("one in 25", "960 / 39 = 24.6 -> 25", ("onein", 25, 24.62)),
      S("35", "large_loss_count 2025 = 35", ("num", 35)), N("2025", "period qualifier"), U("about $41K", "average large-loss size is not in the references")]),

case(18, ["sql-units", "row-shaped", "table", "derived-ratio", "hedge", "attached-unit"],
     "What is the average indemnity per paid claim by severity band for 2024?",
     [sql("SELECT c.severity_band, COUNT(DISTINCT c.claim_id) AS paid_claims, ROUND(SUM(p.amount) / COUNT(DISTINCT c.claim_id), 2) AS avg_indemnity_usd "
          "FROM claims c JOIN payments p ON p.claim_id = c.claim_id AND p.payment_type = 'indemnity' "
          "WHERE strftime('%Y', c.opened_at) = '2024' GROUP BY c.severity_band ORDER BY avg_indemnity_usd DESC",
          column_units={"paid_claims": "count", "avg_indemnity_usd": "currency"})],
     "| Severity | Paid claims | Avg indemnity |\n|---|---|---|\n| Severe | 50 | $39,833 |\n| High | 104 | $11.6K |\n"
     "| Medium | 272 | $3,439 |\n| Low | 421 | $900 |\n\nA Severe claim costs roughly 44 times a Low one, and Severe claims are 5.4% of all paid claims. In 2023 the Severe average was $36K.",
     [S("50", "Severe paid_claims 50", ("num", 50)), S("$39,833", "Severe avg 39,832.93", ("num", 39832.93)),
      C("104", "High paid_claims 140", ("num", 140)), C("$11.6K", "High avg 10,571.53", ("num", 10571.53)),
      S("272", "Medium paid_claims 272", ("num", 272)), C("$3,439", "Medium avg is 3,348.78 (2.7% off)", ("num", 3348.78)),
      S("421", "Low paid_claims 421", ("num", 421)), S("$900", "Low avg 899.99", ("num", 899.99)),
      S("roughly 44 times", "39,832.93 / 899.99 = 44.26", ("hedge", 44.26)), C("5.4%", "50 / (50+140+272+421) = 5.66%", ("num", 5.66)), N("2023", "period qualifier"), U("$36K", "2023 is not in the reference")]),
]
