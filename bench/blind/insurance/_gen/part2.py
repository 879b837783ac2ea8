from common import *
from sqls import Q

CASES = [
case(19, ["ranking", "derived-share", "derived-sum", "derived-one-in-n", "sql-units", "prose"],
     "What were the most common causes of loss for claims opened in 2025?",
     [sql(Q["cause_2025"])],
     "Collision dominates: 345 of the 802 claims opened in 2025, or 43%. Liability is a distant second at 98, "
     "just ahead of wind and hail (86) and glass (84). Fire was the rarest cause with 18 claims — fewer than one in 40. Collision claims rose 9% on 2024.",
     [S("345", "Collision 345", ("num", 345)), S("802", "sum of the causes = 802", ("num", 802)), N("2025", "period qualifier"),
      S("43%", "345 / 802 = 43.0%", ("num", 43.02)),
      S("Liability is a distant second", "Liability 89 is second", ("rank", True)),
      C("98", "Liability has 89 claims", ("num", 89)), C("86", "Wind and hail 88", ("num", 88)), S("84", "Glass 84", ("num", 84)),
      S("Fire was the rarest cause", "Fire 18 is the fewest", ("rank", True)), S("18", "Fire 18", ("num", 18)),
      S("fewer than one in 40", "18 / 802 = 2.2% < 2.5% (one in 44.6)", ("rank", True)), U("9%", "2024 is not in the reference"), N("2024", "period qualifier")]),

case(20, ["row-shaped", "not-a-claim", "question-echo", "derived-sum", "attached-unit", "sql-units", "bullets"],
     "Who are our top 5 policyholders by total indemnity paid, all years?",
     [sql(Q["top_holders"])],
     "Top 5 policyholders by indemnity paid (2023–2025):\n\n"
     "1. Carol Martin — $230.1K across 4 claims\n"
     "2. Susan Anderson — $204.0K on a single claim\n"
     "3. Northstar Movers #42 — $162.2K, 9 claims\n"
     "4. Pioneer Plumbing #15 — $115.4K, 2 claims\n"
     "5. Summit Logistics #14 — $141.0K, 6 claims\n\n"
     "Together the five account for $885K.",
     [N("5", "echoes the question's scope", "Top 5"), N("2023–2025", "period qualifier"),
      N("1.", "list marker", "1. Carol"), S("$230.1K", "Carol Martin 230,070.01", ("num", 230070.01)), S("4", "Carol Martin 4 claims", ("num", 4), "across 4 claims"),
      N("2.", "list marker", "2. Susan"), C("$204.0K", "Susan Anderson 200,437.73", ("num", 200437.73)),
      N("3.", "list marker", "3. Northstar"), N("42", "number in a company name", "#42"), S("$162.2K", "Northstar Movers #42 162,201.04", ("num", 162201.04)),
      C("9", "Northstar Movers #42 has 8 claims", ("num", 8), "9 claims"),
      N("4.", "list marker", "4. Pioneer"), N("15", "number in a company name", "#15"),
      C("$115.4K", "Pioneer Plumbing #15 paid 151,359.72 (digits swapped, 24% low)", ("num", 151359.72)),
      S("2", "Pioneer Plumbing #15 2 claims", ("num", 2), "2 claims"),
      N("5.", "list marker", "5. Summit"), N("14", "number in a company name", "#14"), S("$141.0K", "Summit Logistics #14 141,009.97", ("num", 141009.97)),
      S("6", "Summit Logistics #14 6 claims", ("num", 6), "6 claims"),
      S("$885K", "sum of the five = 885,078", ("num", 885078.47))]),

case(21, ["derived-growth", "signed-comparison", "sql-units", "attached-unit", "hedge", "not-a-claim", "prose"],
     "How has the Fleet 25 loss ratio moved over 2023–2025?",
     [sql(Q["fleet_lr"], column_units={"written_premium": "currency", "indemnity_paid": "currency", "loss_ratio": "percent"}, label="Fleet 25")],
     "Fleet 25 has deteriorated: the loss ratio went from 74.65% in 2023 to 82.4% in 2024 (+7.2 points) and held at 81.8% in 2025. "
     "Written premium slipped from $1.45M to $1.48M over the period (-4.3%), while indemnity rose about 5% to $1.21M. (Home Plus 500 was even worse, above 100% in 2024.)",
     [N("25", "product name", "Fleet 25 has"), S("74.65%", "2023 loss_ratio 74.65", ("num", 74.652)), N("2023", "period"),
      S("82.4%", "2024 loss_ratio 82.44", ("num", 82.44)), N("2024", "period", "82.4% in 2024"),
      C("+7.2 points", "82.44 - 74.65 = +7.79 points", ("num", 7.79)),
      S("81.8%", "2025 loss_ratio 81.80", ("num", 81.80)), N("2025", "period"),
      C("$1.45M", "2023 written premium 1,543,915 (6% off)", ("num", 1543915.13)), S("$1.48M", "2025 written premium 1,476,770", ("num", 1476770.47)),
      S("-4.3%", "1,476,770 / 1,543,915 - 1 = -4.35% (-4.349)", ("num", 4.349)),
      S("about 5%", "1,208,008 / 1,152,569 - 1 = +4.8%", ("hedge", 4.81)),
      S("$1.21M", "2025 indemnity 1,208,008", ("num", 1208008.14)), N("500", "product name", "Plus 500"), U("above 100%", "Home Plus 500 is not in the reference"), N("2024", "period", "100% in 2024")]),

case(22, ["duration", "ranking", "derived-difference", "hedge", "sql-units", "prose"],
     "What was the average settlement time by region for claims opened in 2025?",
     [sql(Q["region_hours_2025"])],
     "Pacific is the quickest at 651.7 hours (about 27 days). Midwest follows at 30 days, then Southwest at 31.4 days, "
     "Southeast at 36.7 days and Northeast at 34.9 days — so Northeast is the slowest, roughly 185 hours behind Pacific. Our service standard is 30 days everywhere.",
     [S("Pacific is the quickest", "651.7 h is the lowest", ("rank", True)), S("651.7 hours", "Pacific 651.7 h", ("num", 651.7)),
      S("about 27 days", "651.7 / 24 = 27.15 days", ("hedge", 27.15)),
      S("30 days", "Midwest 721.1 h = 30.05 days", ("num", 30.05), "at 30 days"),
      C("31.4 days", "Southwest 818.4 h = 34.10 days", ("num", 34.10)),
      C("36.7 days", "Southeast 832.3 h = 34.68 days", ("num", 34.68)),
      S("34.9 days", "Northeast 836.9 h = 34.87 days", ("num", 34.87)),
      S("Northeast is the slowest", "836.9 h is the highest", ("rank", True)),
      S("roughly 185 hours", "836.9 - 651.7 = 185.2 h", ("hedge", 185.2)), U("30 days", "a service standard; not in the reference", "is 30 days")]),

case(23, ["level", "signed-comparison", "sql-units", "prose"],
     "What is our adjusting expense as a share of indemnity, by accident year?",
     [sql(Q["expense_ratio"], column_units={"expense_to_indemnity": "percent"})],
     "Expense as a share of indemnity: 9.3% in 2023, 9.26% in 2024 and 8.3% in 2025. "
     "That is a 0.4-point improvement year on year, though 2025 is still immature.",
     [S("9.3%", "2023 = 9.32%", ("num", 9.32)), N("2023", "period"), S("9.26%", "2024 = 9.26%", ("num", 9.26)), N("2024", "period"),
      C("8.3%", "2025 = 8.83%", ("num", 8.83)), N("2025", "period", "8.3% in 2025"),
      S("0.4-point improvement", "9.26 - 8.83 = 0.43 points", ("num", 0.43)), N("2025", "period", "though 2025")]),

case(24, ["date-row-label", "table", "derived-x-out-of-y", "ranking", "sql-units", "row-shaped"],
     "How many claims were opened per quarter in 2025, and how many of each quarter's claims are still open?",
     [sql(Q["quarterly_2025"])],
     "| Quarter | Claims opened | Still open |\n|---|---|---|\n| Q1 2025 | 207 | 1 |\n| Q2 2025 | 184 | 1 |\n"
     "| Q3 2025 | 241 | 9 |\n| Q4 2025 | 187 | 78 |\n\n"
     "Q3 was the busiest quarter. Roughly 4 out of 10 Q4 claims are still open, which is normal for the most recent quarter. Q4 2024 had 201 claims.",
     [N("Q1 2025", "row label (2025-01-01)"), S("207", "2025-01-01 claims_opened 207", ("num", 207)),
      S("| 1 |", "2025-01-01 still_open 1", ("num", 1), "| 207 | 1 |"),
      N("Q2 2025", "row label (2025-04-01)"), C("184", "2025-04-01 claims_opened 194", ("num", 194)),
      S("| 1 |", "2025-04-01 still_open 1", ("num", 1), "| 184 | 1 |"),
      N("Q3 2025", "row label"), C("241", "2025-07-01 claims 214", ("num", 214)), S("9", "2025-07-01 still open 9", ("num", 9), "| 9 |"),
      N("Q4 2025", "row label"), S("187", "2025-10-01 187", ("num", 187)), C("78", "2025-10-01 still open 73", ("num", 73)),
      S("Q3 was the busiest quarter", "214 is the most", ("rank", True)),
      S("4 out of 10", "10 x 73 / 187 = 3.9 -> 4", ("xofy", 4, 3.90)), N("Q4", "period label", "10 Q4 claims"), N("Q4 2024", "period label"), U("201", "2024 is not in the reference")]),

case(25, ["row-shaped", "table", "derived-difference", "ranking", "not-a-claim", "sql-units", "attached-unit", "hedge"],
     "Compare initial case reserves with indemnity paid by product for 2024 claims.",
     [sql(Q["reserve_vs_paid_2024"], column_units={"total_reserve": "currency", "total_indemnity": "currency"})],
     "| Product | Reserved | Paid |\n|---|---|---|\n"
     "| Fleet 25 | $1.34M | $1.24M |\n| Auto 360 | $1.53M | $1.29M |\n| Home Plus 500 | $1.05M | $1.15M |\n"
     "| Home Basic 250 | $602K | $435K |\n| Auto Lite 120 | $407K | $423K |\n\n"
     "Home Plus 500 is the only product where payments exceeded reserves — by about $101K. Fleet 25 came in $201K under reserve.",
     [N("25", "product name", "| Fleet 25 |"), C("$1.34M", "Fleet 25 reserve 1,438,600 (7% off)", ("num", 1438600)),
      S("$1.24M", "Fleet 25 paid 1,237,707", ("num", 1237706.94)),
      N("360", "product name"), C("$1.53M", "Auto 360 reserve 1,351,720 (13% off)", ("num", 1351720)),
      C("$1.29M", "Auto 360 paid 1,192,860 (8% off)", ("num", 1192860.33)),
      N("500", "product name", "| Home Plus 500 |"), S("$1.05M", "Home Plus 500 reserve 1,053,020", ("num", 1053020)),
      S("$1.15M", "Home Plus 500 paid 1,153,884", ("num", 1153884.38)),
      N("250", "product name"), S("$602K", "Home Basic 250 reserve 601,790", ("num", 601790)),
      C("$435K", "Home Basic 250 paid 452,644 (4% off)", ("num", 452644.34)),
      N("120", "product name"), C("$407K", "Auto Lite 120 reserve 469,840 (13% off)", ("num", 469840)),
      S("$423K", "Auto Lite 120 paid 422,711", ("num", 422711.26)),
      N("500", "product name", "Home Plus 500 is"),
      S("the only product where payments exceeded reserves", "only Home Plus 500 has paid > reserve among all eight", ("rank", True)),
      S("about $101K", "1,153,884 - 1,053,020 = 100,864", ("hedge", 100864.38)),
      N("25", "product name", "Fleet 25 came"), S("$201K", "1,438,600 - 1,237,707 = 200,893", ("num", 200893.06))]),

case(26, ["duration", "sql-units", "prose"],
     "How long after first notice of loss do we make the first indemnity payment on 2024 claims?",
     [sql(Q["first_payment_hours"], unit="hours")],
     "On average the first indemnity payment goes out 26 days after first notice of loss (626 hours), "
     "a little under four weeks. For Low-severity claims it's closer to 13 days.",
     [S("26 days", "626.1 h = 26.09 days", ("num", 26.09)), S("626 hours", "626.1 h", ("num", 626.1)),
      U("13 days", "Low-severity split is not in the reference")]),

case(27, ["duration", "hedge", "sql-units", "prose"],
     "What's the average settlement time for Glass claims opened in 2025?",
     [sql(Q["glass_hours"], unit="hours")],
     "Glass claims opened in 2025 took about 46,000 minutes to settle on average — call it 32.2 days or 4.6 weeks. "
     "That's slower than I'd expect for glass; the 2024 figure was around 25 days.",
     [N("2025", "period qualifier"), S("about 46,000 minutes", "772.71 h = 46,363 min; hedged 45,000-47,000", ("hedge", 46362.6)),
      S("32.2 days", "772.71 h = 32.20 days", ("num", 32.196)), S("4.6 weeks", "772.71 h = 4.60 weeks", ("num", 4.599)),
      N("2024", "period qualifier"), U("around 25 days", "2024 is not in the reference")]),

case(28, ["derived-growth", "level", "hedge", "sql-units", "prose"],
     "How many Severe claims did we have each year, and what's the trend?",
     [sql(Q["severe_by_year"])],
     "Severe claims: 38 in 2023, 52 in 2024 and 49 in 2025. The 2024 jump was +37%, and 2025 was down 6% — "
     "still about 24% above 2023.",
     [S("38", "2023: 38", ("num", 38)), N("2023", "period", "38 in 2023"), S("52", "2024: 52", ("num", 52)), N("2024", "period", "52 in 2024"),
      S("49", "2025: 49", ("num", 49)), N("2025", "period", "49 in 2025"), N("2024", "period", "The 2024 jump"),
      S("+37%", "52 / 38 - 1 = +36.8%", ("num", 36.84)), N("2025", "period", "and 2025 was"),
      S("6%", "49 / 52 - 1 = -5.8%", ("num", 5.77)),
      C("about 24%", "49 / 38 - 1 = +28.9%", ("hedge", 28.95)), N("2023", "period", "above 2023")]),

case(29, ["row-shaped", "bullets", "ranking", "derived-ratio", "hedge", "sql-units"],
     "How many adjusters work each region and what was the 2025 claims load per adjuster?",
     [sql(Q["region_cpa_2025"])],
     "- Northeast: 3 adjusters, 221 claims → 70.3 per adjuster\n"
     "- Southwest: 2 adjusters, 130 claims → 65 per adjuster\n"
     "- Southeast: 3 adjusters, 180 claims → 66 each\n"
     "- Midwest: 3 adjusters, 145 claims → 51.3 each\n"
     "- Pacific: 3 adjusters, 127 claims → 38.3 each\n\n"
     "Northeast adjusters carry the heaviest load, about 1.7x Pacific's. Our staffing model assumes 60 claims per adjuster.",
     [S("3", "Northeast 3 adjusters", ("num", 3), "Northeast: 3"), C("221", "Northeast 211", ("num", 211)), S("70.3", "Northeast 70.3", ("num", 70.3)),
      S("2", "Southwest 2 adjusters", ("num", 2), "Southwest: 2"), S("130", "Southwest 130", ("num", 130)), S("65", "Southwest 65.0", ("num", 65.0)),
      S("3", "Southeast 3", ("num", 3), "Southeast: 3"), S("180", "Southeast 180", ("num", 180)), C("66", "Southeast 60.0", ("num", 60.0)),
      S("3", "Midwest 3", ("num", 3), "Midwest: 3"), C("145", "Midwest 154", ("num", 154)), S("51.3", "Midwest 51.3", ("num", 51.3)),
      S("3", "Pacific 3", ("num", 3), "Pacific: 3"), S("127", "Pacific 127", ("num", 127)), C("38.3", "Pacific 42.3", ("num", 42.3)),
      S("Northeast adjusters carry the heaviest load", "70.3 is the highest", ("rank", True)),
      S("about 1.7x", "70.3 / 42.3 = 1.66", ("hedge", 1.662)), U("60 claims per adjuster", "a staffing assumption; not in the reference")]),

case(30, ["date-row-label", "sql-units", "attached-unit", "derived-sum", "ranking", "hedge", "row-shaped"],
     "How much indemnity did we pay out each month in the first half of 2025, by payment date?",
     [sql(Q["cash_paid_2025"], column_units={"paid": "currency"})],
     "Cash indemnity paid, H1 2025:\n\nJanuary — $560K\nFebruary — $389K\nMarch — $446K\nApril — $347K\nMay — $217K\nJune — $612K\n\n"
     "June was the heaviest month; the half-year total is about $2.65M, 12% more than H1 2024.",
     [N("H1 2025", "period label"), S("$560K", "2025-01-01 560,186.87", ("num", 560186.87)), C("$389K", "2025-02-01 398,165.45 (2% off)", ("num", 398165.45)),
      C("$446K", "2025-03-01 466,436.26 (4% off)", ("num", 466436.26)), S("$347K", "2025-04-01 346,604.30", ("num", 346604.30)),
      C("$217K", "2025-05-01 is 271,346 (digits swapped, 20% low)", ("num", 271346.16)), S("$612K", "2025-06-01 611,689.54", ("num", 611689.54)),
      S("June was the heaviest month", "611,690 is the highest", ("rank", True)),
      S("about $2.65M", "sum = 2,654,429", ("hedge", 2654428.58)), U("12%", "H1 2024 is not in the reference"), N("H1 2024", "period label")]),

case(31, ["derived-one-in-n", "derived-x-out-of-y", "derived-share", "ranking", "hedge", "sql-units", "prose"],
     "How often are settled 2024 claims reopened, by severity band?",
     [sql(Q["reopen_sev_2024"])],
     "High-severity claims get reopened the most: 22 of 140, about one in 6. Medium: 27 of 227 (roughly one in 8). "
     "Low: 26 of 421, about 8%. Severe: 4 of 50, or 8 out of 100.",
     [S("High-severity claims get reopened the most", "22/140 = 15.7% is the highest rate", ("rank", True)),
      S("22", "High reopened 22", ("num", 22), "22 of"), S("140", "High settled 140", ("num", 140)),
      S("one in 6", "140 / 22 = 6.4 -> 6", ("onein", 6, 6.36)),
      S("27", "Medium reopened 27", ("num", 27), "27 of"), C("227", "Medium settled 272", ("num", 272)),
      C("one in 8", "272 / 27 = 10.1 -> one in 10", ("onein", 8, 10.07)),
      S("26", "Low reopened 26", ("num", 26)), S("421", "Low settled 421", ("num", 421)),
      C("about 8%", "26 / 421 = 6.2%", ("hedge", 6.18)),
      S("4", "Severe reopened 4", ("num", 4), "Severe: 4"), S("50", "Severe settled 50", ("num", 50)),
      S("8 out of 100", "100 x 4 / 50 = 8", ("xofy", 8, 8.0))]),

case(32, ["ranking", "signed-comparison", "derived-difference", "hedge", "sql-units", "prose"],
     "Which lines of business had the worst loss ratio in 2025?",
     [sql(Q["line_lr_2025"], column_units={"loss_ratio": "percent"})],
     "Commercial property is the worst at 82.2%, just ahead of commercial auto at 81.8% (0.4 points behind). "
     "Homeowners sits at 76.7%. Personal auto is healthier at 58.8%, and renters is the best line at 27.8% — "
     "roughly 54 points better than commercial property, and up from 13.9% in 2024.",
     [S("Commercial property is the worst", "82.2 is the highest", ("rank", True)), S("82.2%", "commercial property 82.2", ("num", 82.2)),
      S("81.8%", "commercial auto 81.8", ("num", 81.8)), S("0.4 points behind", "82.2 - 81.8 = 0.4", ("num", 0.4)),
      S("76.7%", "homeowners 76.7", ("num", 76.7)), S("58.8%", "personal auto 58.8", ("num", 58.8)),
      S("renters is the best line", "27.8 is the lowest", ("rank", True)), S("27.8%", "renters 27.8", ("num", 27.8)),
      S("roughly 54 points", "82.2 - 27.8 = 54.4", ("hedge", 54.4)), U("13.9%", "2024 is not in the reference"), N("2024", "period qualifier")]),

case(33, ["derived-share", "derived-sum", "derived-one-in-n", "sql-units", "prose"],
     "What's the status breakdown of claims opened in 2025?",
     [sql(Q["status_mix_2025"])],
     "Of the 802 claims opened in 2025, 660 are settled (82%), 84 are still open (11.5%) and 58 were denied (7.2%). "
     "Roughly 1 in 14 was denied, typically about 41 days after first notice.",
     [S("802", "660 + 84 + 58 = 802", ("num", 802)), N("2025", "period qualifier"),
      S("660", "closed 660", ("num", 660)), S("82%", "660 / 802 = 82.3%", ("num", 82.29)),
      S("84", "open 84", ("num", 84)), C("11.5%", "84 / 802 = 10.5%", ("num", 10.47)),
      S("58", "denied 58", ("num", 58)), S("7.2%", "58 / 802 = 7.23%", ("num", 7.23)),
      S("1 in 14", "802 / 58 = 13.8 -> 14", ("onein", 14, 13.83)), U("about 41 days", "time to deny is not in the reference")]),

case(34, ["row-shaped", "not-a-claim", "derived-ratio", "hedge", "sql-units", "attached-unit", "bullets"],
     "What were the three largest 2025 claims by indemnity paid?",
     [sql(Q["biggest_claims"], column_units={"indemnity_paid": "currency"})],
     "1. CLM-25-02452 (Home Plus 500, Severe): $227,019\n"
     "2. CLM-25-01303 (Fleet 25, Severe): $142.9K\n"
     "3. CLM-25-00484 (Business Owner 2000, Severe): $173.7K\n\n"
     "The largest is roughly 1.5x the second.",
     [N("1.", "list marker", "1. CLM"), N("CLM-25-02452", "claim number"), N("500", "product name"), S("$227,019", "CLM-25-02452 227,019.00", ("num", 227019.0)),
      N("2.", "list marker", "2. CLM"), N("CLM-25-01303", "claim number"), N("25", "product name", "Fleet 25"), C("$142.9K", "CLM-25-01303 149,170.75 (4% off)", ("num", 149170.75)),
      N("3.", "list marker", "3. CLM"), N("CLM-25-00484", "claim number"), N("2000", "product name"),
      C("$173.7K", "CLM-25-00484 paid 137,729.94 (digits swapped)", ("num", 137729.94)),
      S("roughly 1.5x", "227,019 / 149,171 = 1.52", ("hedge", 1.522))]),

case(35, ["duration", "hedge", "derived-difference", "sql-units", "prose"],
     "Do commercial or personal claims settle faster? Use settled 2024 claims.",
     [sql(Q["holder_type"])],
     "They're virtually identical: commercial claims settled in 38.4 days on average (214 claims) and personal ones in 38.5 days "
     "(669 claims) — a gap of about 0.1 days, or roughly 2.6 hours. Commercial claims do pay about twice as much, though.",
     [S("38.4 days", "commercial 38.43", ("num", 38.43)), S("214", "commercial 214", ("num", 214)),
      S("38.5 days", "personal 38.54", ("num", 38.54)), S("669", "personal 669", ("num", 669)),
      S("about 0.1 days", "38.54 - 38.43 = 0.11 days", ("hedge", 0.11)),
      S("roughly 2.6 hours", "0.11 days = 2.64 h", ("hedge", 2.64)), U("about twice", "paid amounts are not in the reference")]),

case(36, ["row-shaped", "bullets", "not-a-claim", "question-echo", "derived-sum", "sql-units"],
     "How many 2025 claims did the adjusters hired since 2021 handle?",
     [sql(Q["new_adjuster"])],
     "Five adjusters joined since 2021. Their 2025 caseloads:\n\n"
     "- Aisha Patel (ADJ-103, hired Feb 2021): 67 claims\n"
     "- Priya Raman (ADJ-111, hired Sep 2021): 59\n"
     "- Hannah Berg (ADJ-109, hired Jan 2023): 48\n"
     "- Tom Brennan (ADJ-106, hired Nov 2022): 51\n"
     "- Olivia Grant (ADJ-114, hired Mar 2022): 26\n\n"
     "Together they handled 249 claims, about 31% of the year's 802.",
     [N("2021", "echoes the question's scope", "since 2021"), N("2025", "period qualifier", "Their 2025"),
      N("ADJ-103", "adjuster id"), N("Feb 2021", "hire date"), C("67", "ADJ-103 handled 61", ("num", 61)),
      N("ADJ-111", "adjuster id"), N("Sep 2021", "hire date"), S("59", "ADJ-111 59", ("num", 59)),
      N("ADJ-109", "adjuster id"), N("Jan 2023", "hire date"), C("48", "ADJ-109 handled 52", ("num", 52)),
      N("ADJ-106", "adjuster id"), N("Nov 2022", "hire date"), S("51", "ADJ-106 51", ("num", 51)),
      N("ADJ-114", "adjuster id"), N("Mar 2022", "hire date"), S("26", "ADJ-114 26", ("num", 26)),
      S("249", "61+59+52+51+26 = 249", ("num", 249)),
      U("about 31%", "share of 802; the reference does not hold the year's total"),
      U("802", "the year's total is not in the reference")]),
]
