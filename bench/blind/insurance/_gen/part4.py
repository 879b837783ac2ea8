from common import *
from sqls import Q

CASES = [
case(55, ["row-shaped", "table", "ranking", "duration", "attached-unit", "not-a-claim"],
     "Show 2025 workload for our busiest adjusters: claims handled, average days to settle and indemnity paid.",
     [kpi("adjuster_workload", year=2025)],
     "Here are the main ones:\n\n| Adjuster | Claims handled | Avg days to settle | Indemnity paid |\n|---|---|---|---|\n"
     "| Maria Lopez (ADJ-101) | 87 | 32.8 | $413.8K |\n| Robert King (ADJ-104) | 60 | 36.3 | $474.0K |\n"
     "| Carlos Mendez (ADJ-110) | 59 | 32.5 | $305.4K |\n| Aisha Patel (ADJ-103) | 53 | 29.4 | $246.2K |\n"
     "| Linda Novak (ADJ-107) | 51 | 31.3 | $333.0K |\n| Priya Raman (ADJ-111) | 48 | 36.1 | $318.3K |\n"
     "| Ethan Walsh (ADJ-112) | 44 | 34.4 | $596.3K |\n| Hannah Berg (ADJ-109) | 47 | 23.0 | $176.5K |\n\n"
     "Ethan Walsh paid out the most indemnity despite a lighter caseload; Hannah Berg settles fastest of the eight.",
     [N("ADJ-101", "adjuster id"), C("87", "ADJ-101 claims_handled 101 (87 is its settled count)", ("num", 101)),
      S("32.8", "ADJ-101 32.77 days", ("num", 32.77)), S("$413.8K", "ADJ-101 413,765", ("num", 413765.34)),
      N("ADJ-104", "adjuster id"), C("60", "ADJ-104 claims_handled 75 (60 settled)", ("num", 75)),
      S("36.3", "ADJ-104 36.26 days", ("num", 36.26)), S("$474.0K", "ADJ-104 474,011", ("num", 474010.59)),
      N("ADJ-110", "adjuster id"), C("59", "ADJ-110 claims_handled 71 (59 settled)", ("num", 71), "| 59 |"),
      S("32.5", "ADJ-110 32.50 days", ("num", 32.50)), S("$305.4K", "ADJ-110 305,401", ("num", 305401.35)),
      N("ADJ-103", "adjuster id"), C("53", "ADJ-103 claims_handled 61 (53 settled)", ("num", 61)),
      S("29.4", "ADJ-103 29.36 days", ("num", 29.36)), S("$246.2K", "ADJ-103 246,237", ("num", 246236.85)),
      N("ADJ-107", "adjuster id"), C("51", "ADJ-107 claims_handled 61 (51 settled)", ("num", 61)),
      S("31.3", "ADJ-107 31.32 days", ("num", 31.32)), S("$333.0K", "ADJ-107 333,011", ("num", 333011.42)),
      N("ADJ-111", "adjuster id"), C("48", "ADJ-111 claims_handled 59 (48 settled)", ("num", 59)),
      S("36.1", "ADJ-111 36.06 days", ("num", 36.06)), S("$318.3K", "ADJ-111 318,270", ("num", 318269.56)),
      N("ADJ-112", "adjuster id"), C("44", "ADJ-112 claims_handled 59 (44 settled)", ("num", 59)),
      S("34.4", "ADJ-112 34.44 days", ("num", 34.44)), S("$596.3K", "ADJ-112 596,336", ("num", 596335.99)),
      N("ADJ-109", "adjuster id"), C("47", "ADJ-109 claims_handled 52 (47 settled)", ("num", 52), "| 47 |"),
      S("23.0", "ADJ-109 22.96 days", ("num", 22.96)), S("$176.5K", "ADJ-109 176,481", ("num", 176481.14)),
      S("Ethan Walsh paid out the most indemnity", "596,336 is the highest of all", ("rank", True)),
      S("Hannah Berg settles fastest of the eight", "22.96 days is the lowest of the eight listed", ("rank", True))]),

case(56, ["question-echo", "derived-difference", "derived-ratio", "hedge", "ranking", "sql-units", "prose"],
     "Which adjusters handled more than 60 claims opened in 2025?",
     [sql(Q["adj_over_60_2025"])],
     "Five adjusters cleared the 60-claim mark on 2025 claims: Maria Lopez (101), Robert King (75), Carlos Mendez (71), "
     "and Aisha Patel and Linda Novak with 61 apiece. Maria Lopez is the outlier — 40 more than the two at the bottom of the list, "
     "and about 1.35x Robert King — out of our 14 adjusters overall.",
     [N("60", "echoes the question's threshold"), N("2025", "period qualifier"), S("101", "Maria Lopez 101", ("num", 101)),
      S("75", "Robert King 75", ("num", 75)), S("71", "Carlos Mendez 71", ("num", 71)),
      S("61 apiece", "Aisha Patel 61, Linda Novak 61", ("num", 61)),
      S("Maria Lopez is the outlier", "101 is the highest", ("rank", True)),
      S("40 more", "101 - 61 = 40", ("num", 40)), S("about 1.35x", "101 / 75 = 1.347", ("hedge", 1.347)),
      U("14", "adjuster head count is not in the reference")]),

case(57, ["question-echo", "derived-sum", "derived-share", "ranking", "sql-units", "prose"],
     "Did any region have more than 200 claims in 2024? List them with counts.",
     [sql(Q["region_claims_2024"])],
     "Yes — two regions topped 200 claims in 2024: Southeast with 213 and Northeast with 202. Midwest just missed at 196. "
     "Together the two account for 415 of the 960 claims, i.e. 43%.",
     [N("200", "echoes the question's threshold"), N("2024", "period qualifier"), S("213", "Southeast 213", ("num", 213)),
      S("202", "Northeast 202", ("num", 202), "with 202"), S("196", "Midwest 196", ("num", 196)),
      S("415", "213 + 202 = 415", ("num", 415)), S("960", "sum of all regions = 960", ("num", 960)),
      S("43%", "415 / 960 = 43.2%", ("num", 43.23))]),

case(58, ["question-echo", "ranking", "not-a-claim", "sql-units", "bullets"],
     "Our target is a loss ratio under 70%. Which products came in under 70% in 2025?",
     [sql(Q["product_lr_2025"], column_units={"loss_ratio": "percent"})],
     "Five products beat the 70% target in 2025:\n\n- Condo 300: 18.0%\n- Renters 100: 27.8%\n- Auto Lite 120: 49.9%\n"
     "- Auto 360: 65.2%\n- Home Basic 250: 68.6% (just scraped in)\n\n"
     "Above target: Fleet 25 at 81.8%, Business Owner 2000 at 82.2%, and Home Plus 500 — the worst — at 93.5%.",
     [N("70%", "echoes the question's target"), N("2025", "period qualifier"),
      N("300", "product name"), S("18.0%", "Condo 300 17.96", ("num", 17.96)),
      N("100", "product name"), S("27.8%", "Renters 100 27.79", ("num", 27.79)),
      N("120", "product name"), S("49.9%", "Auto Lite 120 49.87", ("num", 49.87)),
      N("360", "product name"), C("65.2%", "Auto 360 62.58", ("num", 62.58)),
      N("250", "product name"), S("68.6%", "Home Basic 250 68.56", ("num", 68.56)),
      N("25", "product name", "Fleet 25"), S("81.8%", "Fleet 25 81.80", ("num", 81.80)),
      N("2000", "product name"), S("82.2%", "Business Owner 2000 82.23", ("num", 82.23)),
      N("500", "product name"), S("the worst", "93.52 is the highest", ("rank", True)), S("93.5%", "Home Plus 500 93.52", ("num", 93.52))]),

case(59, ["signed-comparison", "derived-difference", "level", "sql-units", "bullets"],
     "How does the 2025 loss ratio compare with 2024 and 2023?",
     [sql(Q["lr_by_year"], column_units={"loss_ratio": "percent"})],
     "- **2025:** 71.8%\n- vs 2024 (77.85%): −6.1 pts\n- vs 2023 (61.4%): +10.4 pts\n\n"
     "Better than last year, still well above 2023 — and above the 68% we planned for 2026.",
     [N("2025", "row label", "**2025:**"), S("71.8%", "2025 = 71.79", ("num", 71.79)),
      N("2024", "period", "vs 2024"), S("77.85%", "2024 = 77.85", ("num", 77.85)), S("−6.1 pts", "71.79 - 77.85 = -6.06", ("num", 6.06)),
      N("2023", "period", "vs 2023"), S("61.4%", "2023 = 61.36", ("num", 61.36)), S("+10.4 pts", "71.79 - 61.36 = +10.43", ("num", 10.43)),
      N("2023", "period", "above 2023"), U("68%", "a plan figure; not in the reference"), N("2026", "period qualifier")]),

case(60, ["signed-comparison", "duration", "hedge", "sql-units", "prose"],
     "How does each region's 2025 settlement time compare with the company average?",
     [sql(Q["region_vs_all_hours_2025"])],
     "Against the 2025 company average of 780 hours (32.5 days): Southeast +52 hours, Pacific −129 hours, Midwest −95 hours, "
     "and Northeast is 56.5 hours slower. In days, Southeast runs about 2.2 days slower and Pacific about 5.4 days faster.",
     [N("2025", "period qualifier"), S("780 hours", "All regions 780.4 h", ("num", 780.4)), S("32.5 days", "780.4 h = 32.52 days", ("num", 32.52)),
      S("+52 hours", "832.3 - 780.4 = +51.9", ("num", 51.9)), S("−129 hours", "651.7 - 780.4 = -128.7", ("num", 128.7)),
      C("−95 hours", "721.1 - 780.4 = -59.3", ("num", 59.3)), S("56.5 hours slower", "836.9 - 780.4 = +56.5", ("num", 56.5)),
      S("about 2.2 days slower", "51.9 h = 2.16 days", ("hedge", 2.1625)), S("about 5.4 days faster", "128.7 h = 5.36 days", ("hedge", 5.3625))]),

case(61, ["derived-x-out-of-y", "derived-one-in-n", "derived-sum", "ranking", "sql-units", "prose"],
     "Which causes of loss had the highest denial rates in 2024?",
     [sql(Q["denied_by_cause_2024"])],
     "Fire has the highest denial rate (2 of 17, 11.8%), with glass close behind at 11.0% — roughly 1 in 9 glass claims is denied. "
     "Collision: 30 of 351 denied, about 7 out of 100. Water damage is lowest at 4.6%, fewer than 1 in 20. "
     "Overall, 77 of 960 decided claims were denied.",
     [S("Fire has the highest denial rate", "11.8 is the highest", ("rank", True)), S("2", "Fire denied 2", ("num", 2), "2 of 17"),
      S("17", "Fire decided 17", ("num", 17), "of 17"), S("11.8%", "Fire 11.8", ("num", 11.8)), S("11.0%", "Glass 11.0", ("num", 11.0)),
      S("1 in 9", "118 / 13 = 9.1 -> 9", ("onein", 9, 9.08)),
      S("30", "Collision denied 30", ("num", 30), "30 of"), S("351", "Collision decided 351", ("num", 351)),
      C("about 7 out of 100", "100 x 30 / 351 = 8.5 -> 9", ("xofy", 7, 8.55)),
      S("Water damage is lowest", "4.6 is the lowest", ("rank", True)), S("4.6%", "Water damage 4.6", ("num", 4.6)),
      S("fewer than 1 in 20", "4.6% < 5%", ("rank", True)),
      S("77", "sum of denied = 77", ("num", 77)), S("960", "sum of decided = 960", ("num", 960))]),

case(62, ["derived-x-out-of-y", "derived-one-in-n", "level", "sql-units", "prose"],
     "Give me 2025's reopen rate, denial rate and claim frequency in plain terms.",
     [sql(Q["rates_2025"], column_units={"reopen_rate": "percent", "denial_rate": "percent", "claims_per_100_policies": "percent"})],
     "In 2025, about 5 in every 100 settled claims were reopened — one in 21 — while 8 out of 100 decided claims were denied, "
     "and roughly 12 out of every 100 policies had a claim. Reopens are down from 8.9% in 2024.",
     [N("2025", "period qualifier", "In 2025"), S("about 5 in every 100", "100 x 0.047 = 4.7 -> 5", ("xofy", 5, 4.7)),
      S("one in 21", "100 / 4.7 = 21.3 -> 21", ("onein", 21, 21.28)),
      S("8 out of 100", "100 x 0.0808 = 8.1 -> 8", ("xofy", 8, 8.08)),
      S("12 out of every 100", "12.28 -> 12", ("xofy", 12, 12.28)),
      U("8.9%", "2024 is not in the reference"), N("2024", "period qualifier")]),

case(63, ["derived-x-out-of-y", "derived-one-in-n", "derived-sum", "sql-units", "prose"],
     "How do commercial and personal policyholders compare on 2025 claims, denials and high-severity claims?",
     [sql(Q["holder_2025"])],
     "Commercial policyholders filed 192 of the 802 claims opened in 2025 — roughly 3 out of 10. Their denials were 12, "
     "about 6 out of 100, against 46 for personal lines, 7 out of 100. High-severity: 39 commercial claims, one in 5, "
     "and 122 personal, also one in 5.",
     [S("192", "commercial 192", ("num", 192)), S("802", "192 + 610 = 802", ("num", 802)), N("2025", "period qualifier"),
      C("roughly 3 out of 10", "10 x 192 / 802 = 2.4 -> 2", ("xofy", 3, 2.39)),
      S("12", "commercial denied 12", ("num", 12), "were 12"), S("about 6 out of 100", "100 x 12 / 192 = 6.25 -> 6", ("xofy", 6, 6.25)),
      S("46", "personal denied 46", ("num", 46)), C("7 out of 100", "100 x 46 / 610 = 7.5 -> 8", ("xofy", 7, 7.54)),
      S("39", "commercial high severity 39", ("num", 39)), S("one in 5", "192 / 39 = 4.9 -> 5", ("onein", 5, 4.92), "claims, one in 5"),
      S("122", "personal high severity 122", ("num", 122)), S("one in 5", "610 / 122 = 5.0", ("onein", 5, 5.0), "also one in 5")]),

case(64, ["attached-unit", "duration", "derived-share", "derived-ratio", "hedge", "sql-units", "prose"],
     "Give me a one-line scorecard for 2024: policies in force, claims, indemnity paid and average settlement time.",
     [sql(Q["scorecard_2024"], column_units={"policies_in_force": "count", "claims": "count", "indemnity_paid": "currency", "avg_settlement": "hours"})],
     "2024 at a glance: 7.3k policies in force · 960 claims · $4.8M paid · 924h average settlement (~38.5d) · "
     "13.1 claims per 100 policies · ≈$5.0k paid per claim.",
     [N("2024", "period qualifier"), S("7.3k", "policies_in_force 7,320", ("num", 7320)), S("960", "claims 960", ("num", 960)),
      S("$4.8M", "indemnity 4,761,423", ("num", 4761422.71)), S("924h", "avg_settlement 924.4 h", ("num", 924.4)),
      S("~38.5d", "924.4 h = 38.52 days", ("hedge", 38.52)),
      S("13.1", "960 / 7,320 = 13.11 per 100", ("num", 13.11)), N("100", "scale anchor"),
      S("≈$5.0k", "4,761,423 / 960 = 4,960", ("hedge", 4959.8))]),

case(65, ["attached-unit", "duration", "derived-share", "derived-ratio", "hedge", "sql-units", "prose"],
     "Same scorecard for 2025, please.",
     [sql(Q["scorecard_2025"])],
     "2025: 6.8k policies in force, 802 claims, $4.1M paid, 708h average settlement, 12.3 claims per 100 policies, "
     "~$5.2k paid per claim. That's 3% fewer policies than 2024.",
     [N("2025", "period qualifier"), C("6.8k", "policies_in_force 6,533", ("num", 6533)), S("802", "claims 802", ("num", 802)),
      S("$4.1M", "indemnity 4,132,936", ("num", 4132935.52)), C("708h", "avg_settlement_hours 780.4", ("num", 780.4)),
      S("12.3", "802 / 6,533 = 12.28 per 100", ("num", 12.28)), N("100", "scale anchor"),
      S("~$5.2k", "4,132,936 / 802 = 5,153", ("hedge", 5153.3)),
      U("3%", "2024 is not in the reference"), N("2024", "period qualifier")]),

case(66, ["derived-difference", "derived-ratio", "ranking", "hedge", "attached-unit", "sql-units", "prose"],
     "How does indemnity paid on 2025 claims split by line of business?",
     [sql(Q["home_vs_auto_paid_2025"])],
     "Homeowners paid the most indemnity in 2025 — $1.40M on 165 claims — about $194K more than commercial auto ($1.21M, 147 claims). "
     "Personal auto had more than twice as many paid claims (354) as homeowners but paid $297K less. Renters is negligible at $23K. "
     "Average homeowners claim: roughly $8.5K versus $3.2K for personal auto, about 2.7x.",
     [S("Homeowners paid the most indemnity", "1,401,732 is the highest", ("rank", True)), N("2025", "period qualifier"),
      S("$1.40M", "homeowners 1,401,732", ("num", 1401731.81)), S("165", "homeowners paid claims 165", ("num", 165)),
      S("about $194K more", "1,401,732 - 1,208,008 = 193,724", ("hedge", 193723.67)),
      S("$1.21M", "commercial auto 1,208,008", ("num", 1208008.14)), S("147", "commercial auto 147", ("num", 147)),
      S("more than twice", "354 / 165 = 2.15", ("rank", True)), S("354", "personal auto 354", ("num", 354)),
      C("$297K less", "1,401,732 - 1,122,492 = 279,240", ("num", 279239.83)),
      S("$23K", "renters 22,997", ("num", 22996.55)),
      S("roughly $8.5K", "1,401,732 / 165 = 8,495", ("hedge", 8495.34)), S("$3.2K", "1,122,492 / 354 = 3,171", ("num", 3170.88)),
      S("about 2.7x", "8,495 / 3,171 = 2.68", ("hedge", 2.679))]),

case(67, ["derived-difference", "signed-comparison", "derived-share", "hedge", "attached-unit", "sql-units", "bullets"],
     "How do initial case reserves compare with indemnity paid, by accident year?",
     [sql(Q["reserve_vs_paid_year"], column_units={"initial_reserve": "currency", "indemnity_paid": "currency"})],
     "- **2023:** reserved $4.42M, paid $3.96M → $0.46M under reserve\n"
     "- **2024:** reserved $5.38M, paid $4.76M (−$0.62M); we paid out about 88% of reserves\n"
     "- **2025:** reserved $4.82M vs $4.13M paid so far, a $690K gap that will narrow as open claims settle",
     [N("2023", "row label"), S("$4.42M", "2023 reserve 4,420,460", ("num", 4420460)), S("$3.96M", "2023 paid 3,958,501", ("num", 3958500.86)),
      S("$0.46M", "4,420,460 - 3,958,501 = 461,959", ("num", 461959.14)),
      N("2024", "row label"), S("$5.38M", "2024 reserve 5,381,720", ("num", 5381720)), S("$4.76M", "2024 paid 4,761,423", ("num", 4761422.71)),
      S("−$0.62M", "4,761,423 - 5,381,720 = -620,297", ("num", 620297.29)), S("about 88%", "4,761,423 / 5,381,720 = 88.5%", ("hedge", 88.47)),
      N("2025", "row label"), S("$4.82M", "2025 reserve 4,818,340", ("num", 4818340)), S("$4.13M", "2025 paid 4,132,936", ("num", 4132935.52)),
      C("$690K", "4,818,340 - 4,132,936 = 685,404", ("num", 685404.48))]),

case(68, ["date-row-label", "table", "ranking", "derived-ratio", "derived-sum", "attached-unit"],
     "Weekly new claims and average initial reserve for November 2025 (weeks 3–30 November)?",
     [kpi("weekly_claims", start_date="2025-11-03", end_date="2025-11-30")],
     "| Week starting | New claims | Avg initial reserve |\n|---|---|---|\n| 3 Nov 2025 | 21 | $8.9K |\n| 10 Nov 2025 | 12 | $15.8K |\n"
     "| 17 Nov 2025 | 14 | $2,640 |\n| 24 Nov 2025 | 11 | $6.6K |\n\n"
     "56 claims in total. The week of 3 November was the busiest; the week of 10 November carried the largest average reserve, "
     "6x that of the week of 17 November.",
     [N("3 Nov 2025", "row label"), S("21", "2025-11-03: 21", ("num", 21)), S("$8.9K", "2025-11-03 8,877.62", ("num", 8877.62)),
      N("10 Nov 2025", "row label"), S("12", "2025-11-10: 12", ("num", 12)), S("$15.8K", "2025-11-10 15,794.17", ("num", 15794.17)),
      N("17 Nov 2025", "row label"), C("14", "2025-11-17: 12", ("num", 12)), S("$2,640", "2025-11-17 2,640.00", ("num", 2640.0)),
      N("24 Nov 2025", "row label"), S("11", "2025-11-24: 11", ("num", 11)), S("$6.6K", "2025-11-24 6,628.18", ("num", 6628.18)),
      S("56", "21 + 12 + 12 + 11 = 56", ("num", 56)), N("3 November", "week label"),
      S("was the busiest", "21 is the most", ("rank", True)), N("10 November", "week label"),
      S("the largest average reserve", "15,794 is the largest", ("rank", True)),
      S("6x", "15,794 / 2,640 = 5.98", ("num", 5.98)), N("17 November", "week label")]),

case(69, ["derived-share", "derived-x-out-of-y", "derived-ratio", "hedge", "attached-unit", "sql-units", "prose"],
     "What does the current open claims inventory look like?",
     [sql(Q["severe_open_2025"], column_units={"open_claims": "count", "open_high_severe": "count", "open_reserve": "currency"})],
     "84 claims are open. 41 of them are High or Severe — 49%, roughly 5 in 10 — and together the open claims carry $1.14M "
     "of initial reserve, about $13.5K each. The oldest has been open for 412 days.",
     [S("84", "open_claims 84", ("num", 84)), S("41", "open_high_severe 41", ("num", 41), "41 of them"), S("49%", "41 / 84 = 48.8%", ("num", 48.81)),
      S("roughly 5 in 10", "10 x 41 / 84 = 4.9 -> 5", ("xofy", 5, 4.88)), S("$1.14M", "open_reserve 1,137,490", ("num", 1137490)),
      S("about $13.5K", "1,137,490 / 84 = 13,542", ("hedge", 13541.55)), U("412 days", "claim age is not in the reference")]),

case(70, ["derived-share", "derived-x-out-of-y", "derived-one-in-n", "derived-difference", "sql-units", "prose"],
     "How many 2025 claims have received an indemnity payment so far?",
     [sql(Q["paid_2025"])],
     "703 of the 802 claims opened in 2025 (88%) have had an indemnity payment — about 9 out of 10. The remaining 99, "
     "roughly one in 8, have not, compared with 94% paid for 2024 claims.",
     [S("703", "claims_with_indemnity 703", ("num", 703)), S("802", "claims_opened 802", ("num", 802)), N("2025", "period qualifier"),
      S("88%", "703 / 802 = 87.7%", ("num", 87.66)), S("about 9 out of 10", "10 x 703 / 802 = 8.8 -> 9", ("xofy", 9, 8.77)),
      S("99", "802 - 703 = 99", ("num", 99)), S("one in 8", "802 / 99 = 8.1 -> 8", ("onein", 8, 8.10)),
      U("94%", "2024 is not in the reference"), N("2024", "period qualifier")]),

case(71, ["signed-comparison", "derived-one-in-n", "level", "not-a-claim", "prose"],
     "Did Home Plus 500 improve in 2025 on claim frequency and loss ratio?",
     [kpil("claim_frequency", "frequency 2024", year=2024, product="Home Plus 500"), kpil("claim_frequency", "frequency 2025", year=2025, product="Home Plus 500"),
      kpil("loss_ratio", "loss ratio 2024", year=2024, product="Home Plus 500"), kpil("loss_ratio", "loss ratio 2025", year=2025, product="Home Plus 500")],
     "Yes, on both fronts. Home Plus 500 frequency fell from 10.1% in 2024 to 8.3% in 2025 (−1.85 points), and the loss ratio from "
     "101.7% to 95.3% (−8.2 points). Still, roughly 1 in 12 policies had a claim last year.",
     [N("500", "product name", "Plus 500 frequency"), S("10.1%", "frequency 2024 = 10.12", ("num", 10.12)), N("2024", "period qualifier"),
      S("8.3%", "frequency 2025 = 8.27", ("num", 8.27)), N("2025", "period qualifier"),
      S("−1.85 points", "8.267 - 10.118 = -1.850", ("num", 1.8503)),
      S("101.7%", "loss ratio 2024 = 101.69", ("num", 101.69)), C("95.3%", "loss ratio 2025 = 93.52", ("num", 93.52)),
      S("−8.2 points", "93.52 - 101.69 = -8.17", ("num", 8.17)),
      S("roughly 1 in 12", "1 / 0.0827 = 12.1 -> 12", ("onein", 12, 12.10))]),

case(72, ["question-echo", "ranking", "derived-ratio", "derived-sum", "not-a-claim", "sql-units", "prose"],
     "At what hours of the day are most 2025 claims reported? Top 3.",
     [sql(Q["opened_hour"])],
     "Top 3 reporting hours for 2025 claims: 9:00–10:00 with 142 new claims, 10:00–11:00 with 84, and 17:00–18:00 with 84 as well. "
     "The 9 o'clock hour alone sees 1.7x the next busiest, and almost as many as the other two combined (167). "
     "That's about 18% of all claims in the year.",
     [N("3", "echoes the question's scope", "Top 3"), N("2025", "period qualifier"),
      N("9:00–10:00", "row label (hour 9)"), S("142", "hour 9: 142", ("num", 142)),
      N("10:00–11:00", "row label (hour 10)"), S("84", "hour 10: 84", ("num", 84), "with 84,"),
      N("17:00–18:00", "row label (hour 17)"), C("84", "hour 17: 83", ("num", 83), "with 84 as"),
      N("9 o'clock", "row label"), S("1.7x", "142 / 84 = 1.69", ("num", 1.69)),
      S("167", "84 + 83 = 167", ("num", 167)), U("about 18%", "the year's total is not in the reference")]),
]
