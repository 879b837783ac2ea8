from common import *
from sqls import Q

P = ["Home Plus 500", "Auto 360", "Fleet 25"]

CASES = [
case(37, ["row-shaped", "table", "ranking", "derived-sum", "attached-unit", "duration"],
     "Show the regional summary for 2025: claims, indemnity paid, loss ratio and average days to settle.",
     [kpi("region_summary", year=2025)],
     "| Region | Claims | Indemnity paid | Loss ratio | Avg. days to settle |\n|---|---|---|---|---|\n"
     "| Northeast | 211 | $1.01M | 67.2% | 34.9 |\n"
     "| Southeast | 213 | $944K | 68.3% | 37.4 |\n"
     "| Midwest | 196 | $786K | 64.8% | 30.0 |\n"
     "| Southwest | 130 | $624K | 75.5% | 33.5 |\n"
     "| Pacific | 127 | $859K | 85.0% | 29.2 |\n\n"
     "Pacific has the worst loss ratio despite the fewest claims; total indemnity across regions is $4.13M. The industry loss ratio runs at ~65%.",
     [S("211", "Northeast 211", ("num", 211)), S("$1.01M", "Northeast 1,006,834", ("num", 1006834.43)),
      S("67.2%", "Northeast 67.22", ("num", 67.22)), S("34.9", "Northeast 34.87 days", ("num", 34.87)),
      C("213", "Southeast 180 (213 is its 2024 count)", ("num", 180)), S("$944K", "Southeast 943,827", ("num", 943826.75)),
      C("68.3%", "Southeast 72.94 (68.33 was 2024)", ("num", 72.94)), C("37.4", "Southeast 34.68 days", ("num", 34.68)),
      C("196", "Midwest 154 (196 is 2024)", ("num", 154)), C("$786K", "Midwest 663,784 (786K is 2024)", ("num", 663784.02)),
      S("64.8%", "Midwest 64.79", ("num", 64.79)), S("30.0", "Midwest 30.04 days", ("num", 30.04)),
      S("130", "Southwest 130", ("num", 130)), S("$624K", "Southwest 623,671", ("num", 623670.91)),
      C("75.5%", "Southwest 70.21 (75.53 was 2024)", ("num", 70.21)), C("33.5", "Southwest 34.10 days", ("num", 34.10)),
      S("127", "Pacific 127", ("num", 127)), C("$859K", "Pacific 894,819 (4% off)", ("num", 894819.41)),
      S("85.0%", "Pacific 85.01", ("num", 85.01)), C("29.2", "Pacific 27.15 days", ("num", 27.15)),
      S("Pacific has the worst loss ratio", "85.01 is the highest", ("rank", True)),
      S("the fewest claims", "127 is the fewest", ("rank", True)),
      S("$4.13M", "sum of indemnity_paid = 4,132,936", ("num", 4132935.52)), U("~65%", "an industry figure; not in the reference")]),

case(38, ["level", "not-a-claim", "prose"],
     "What was the 2024 loss ratio for Home Plus 500, Auto 360 and Fleet 25?",
     [kpil("loss_ratio", p, year=2024, product=p) for p in P],
     "Home Plus 500 ran above 100% — 101.7% — meaning we paid out more in indemnity than we wrote in premium. "
     "Auto 360 came in at 85.2% and Fleet 25 at 84.2%. The portfolio-wide figure was 77.9%.",
     [N("500", "product name", "Home Plus 500 ran"), S("above 100%", "101.69 > 100", ("gt", 101.69)),
      S("101.7%", "Home Plus 500 2024 = 101.69%", ("num", 101.69)),
      N("360", "product name"), C("85.2%", "Auto 360 2024 = 82.50%", ("num", 82.50)),
      N("25", "product name", "Fleet 25 at"), C("84.2%", "Fleet 25 2024 = 82.44%", ("num", 82.44)),
      U("77.9%", "portfolio loss ratio is not among the references")]),

case(39, ["level", "derived-x-out-of-y", "ranking", "not-a-claim", "bullets"],
     "What was the 2025 claim frequency for Auto 360, Auto Lite 120, Fleet 25 and Home Plus 500?",
     [kpil("claim_frequency", p, year=2025, product=p) for p in ["Auto 360", "Auto Lite 120", "Fleet 25", "Home Plus 500"]],
     "Claim frequency, 2025 (claims per 100 policies in force):\n\n"
     "- Auto 360: 15.2%\n- Auto Lite 120: 14.5%\n- Fleet 25: 68.8%\n- Home Plus 500: 10.1%\n\n"
     "Fleet 25 has by far the highest frequency — roughly 6 claims for every 10 policies. "
     "For reference, the book average is 12.3%.",
     [N("2025", "period qualifier"), N("100", "scale anchor"),
      N("360", "product name", "Auto 360:"), C("15.2%", "Auto 360 2025 = 15.05% (15.2 was 2024)", ("num", 15.05)),
      N("120", "product name", "Lite 120:"), C("14.5%", "Auto Lite 120 2025 = 14.56%", ("num", 14.563)),
      N("25", "product name", "Fleet 25:"), C("68.8%", "Fleet 25 2025 = 59.27% (68.8 was 2024)", ("num", 59.27)),
      N("500", "product name", "Plus 500:"), C("10.1%", "Home Plus 500 2025 = 8.27%", ("num", 8.27)),
      S("Fleet 25 has by far the highest frequency", "59.27% is the highest of the four", ("rank", True)),
      S("6 claims for every 10", "10 x 0.5927 = 5.9 -> 6", ("xofy", 6, 5.93)),
      U("12.3%", "book-wide frequency is not among the references")]),

case(40, ["level", "signed-comparison", "derived-ratio", "hedge", "attached-unit", "bullets"],
     "What's the average paid per claim in 2025 for Pacific, Northeast and Midwest, versus the company average?",
     [kpil("avg_paid_per_claim", "Pacific", year=2025, region="Pacific"), kpil("avg_paid_per_claim", "Northeast", year=2025, region="Northeast"),
      kpil("avg_paid_per_claim", "Midwest", year=2025, region="Midwest"), kpil("avg_paid_per_claim", "company", year=2025)],
     "- **Pacific:** $8,061 per paid claim — about $2.2K above the company average\n"
     "- **Northeast:** $5,244\n- **Midwest:** $4.8K\n\n"
     "Company-wide the 2025 figure is $5,879, up from $5,392 in 2024. Pacific is roughly 1.7x Midwest.",
     [S("$8,061", "Pacific 8,061.44", ("num", 8061.44)), S("about $2.2K above", "8,061.44 - 5,879.00 = +2,182", ("hedge", 2182.44)),
      S("$5,244", "Northeast 5,243.93", ("num", 5243.93)), S("$4.8K", "Midwest 4,775.42", ("num", 4775.42)),
      N("2025", "period qualifier"), S("$5,879", "company 5,879.00", ("num", 5879.0)),
      U("$5,392", "2024 is not among the references"), N("2024", "period qualifier"),
      S("roughly 1.7x", "8,061 / 4,775 = 1.69", ("hedge", 1.688))]),

case(41, ["level", "derived-difference", "derived-ratio", "prose"],
     "How did 2025 claim volumes compare between the Northeast and Pacific regions?",
     [kpil("claim_count", "Northeast", year=2025, region="Northeast"), kpil("claim_count", "Pacific", year=2025, region="Pacific")],
     "Northeast logged 211 claims in 2025 versus 127 in the Pacific — 84 more, or 1.66 times as many. "
     "Northeast also has the larger book (about 820 policyholders).",
     [S("211", "Northeast 2025 = 211", ("num", 211)), N("2025", "period qualifier"), S("127", "Pacific 2025 = 127", ("num", 127)),
      S("84 more", "211 - 127 = 84", ("num", 84)), S("1.66 times", "211 / 127 = 1.661", ("num", 1.661)),
      U("about 820", "policyholder counts are not among the references")]),

case(42, ["duration", "hedge", "derived-ratio", "level", "prose"],
     "How long do Low, High and Severe claims opened in 2025 take to settle?",
     [kpil("avg_settlement_hours", "Low", year=2025, severity="Low"), kpil("avg_settlement_hours", "High", year=2025, severity="High"),
      kpil("avg_settlement_hours", "Severe", year=2025, severity="Severe")],
     "Low-severity claims settle in about 13.4 days (322 hours). High ones average 1,601 hours — roughly 7.5 weeks — "
     "and Severe claims take 3,065 hours, about 128 days (Medium: about 34 days). Severe therefore takes nearly 10x as long as Low.",
     [S("about 13.4 days", "322.31 h = 13.43 days", ("hedge", 13.43)), S("322 hours", "Low 322.31 h", ("num", 322.31)),
      S("1,601 hours", "High 1,600.68 h", ("num", 1600.68)), C("roughly 7.5 weeks", "1,600.68 h = 9.53 weeks", ("hedge", 9.53)),
      S("3,065 hours", "Severe 3,065.49 h", ("num", 3065.49)), S("about 128 days", "3,065.49 h = 127.7 days", ("hedge", 127.73)), U("about 34 days", "Medium is not among the references"),
      S("nearly 10x", "3,065.49 / 322.31 = 9.51", ("hedge", 9.51))]),

case(43, ["date-row-label", "row-shaped", "derived-sum", "derived-one-in-n", "attached-unit", "bullets"],
     "Give me monthly claim counts and indemnity paid for the second half of 2025.",
     [kpi("monthly_claims", year=2025)],
     "- July 2025: 82 claims, $396.6K paid\n- August 2025: 66 claims, $192.2K\n- September 2025: 69 claims, $463.9K\n"
     "- October 2025: 60 claims, $224.0K\n- November 2025: 54 claims, $156.0K\n- December 2025: 86 claims, $102.2K\n\n"
     "H2 total: 401 claims, about 1 in 5 of them High or Severe. December's low paid figure reflects claims still in progress.",
     [N("2025", "row label", "July 2025"), S("82", "2025-07-01 82", ("num", 82)), S("$396.6K", "2025-07-01 396,625.00", ("num", 396625.0)),
      N("2025", "row label", "August 2025"), S("66", "2025-08-01 66", ("num", 66)), C("$192.2K", "2025-08-01 199,216.80", ("num", 199216.8)),
      N("2025", "row label", "September 2025"), C("69", "2025-09-01 is 66", ("num", 66)), S("$463.9K", "2025-09-01 463,864.34", ("num", 463864.34)),
      N("2025", "row label", "October 2025"), S("60", "2025-10-01 60", ("num", 60)), C("$224.0K", "2025-10-01 is 244,031", ("num", 244031.41)),
      N("2025", "row label", "November 2025"), C("54", "2025-11-01 is 59", ("num", 59)), S("$156.0K", "2025-11-01 155,999.91", ("num", 155999.91)),
      N("2025", "row label", "December 2025"), C("86", "2025-12-01 is 68", ("num", 68)), S("$102.2K", "2025-12-01 102,196.10", ("num", 102196.1)),
      N("H2", "period label"), S("401", "82+66+66+60+59+68 = 401", ("num", 401)),
      S("about 1 in 5", "high-severity 81 of 401 -> 1 in 4.95", ("onein", 5, 4.95))]),

case(44, ["date-row-label", "bullets", "derived-sum", "ranking", "attached-unit"],
     "How many claims were opened per week in December 2024?",
     [kpi("weekly_claims", start_date="2024-12-02", end_date="2024-12-29")],
     "Weekly FNOL counts, December 2024:\n\n- w/c 2024-12-02: 16\n- w/c 2024-12-09: 15\n"
     "- w/c 2024-12-16: 24 (the peak week; average reserve $6.8K)\n- w/c 2024-12-23: 20, despite the holidays\n\n"
     "That's 75 claims across the four weeks, up from 62 in December 2023.",
     [N("December 2024", "period qualifier"), N("2024-12-02", "week label"), S("16", "2024-12-02: 16", ("num", 16), "02: 16"),
      N("2024-12-09", "week label"), S("15", "2024-12-09: 15", ("num", 15)),
      N("2024-12-16", "week label"), S("24", "2024-12-16: 24", ("num", 24), ": 24 ("), S("the peak week", "24 is the most", ("rank", True)),
      S("$6.8K", "2024-12-16 avg reserve 6,777.50", ("num", 6777.5)),
      N("2024-12-23", "week label"), S("20", "2024-12-23: 20", ("num", 20), ": 20,"),
      S("75", "16+15+24+20 = 75", ("num", 75)), U("62", "December 2023 is not in the reference"), N("December 2023", "period qualifier")]),

case(45, ["level", "derived-growth", "attached-unit", "hedge", "prose"],
     "How has written premium developed from 2023 to 2025?",
     [{"core_node": "written_premium", "params": {"year": y}, "label": str(y)} for y in (2023, 2024, 2025)],
     "Written premium has shrunk for two straight years: $6.45M in 2023, $6.12M in 2024 and $5.76M in 2025 — "
     "down 5.2% and then 5.9%, about 11% lower overall. Retention held at 89%.",
     [S("$6.45M", "2023 = 6,451,710", ("num", 6451710.05)), N("2023", "period"), S("$6.12M", "2024 = 6,115,868", ("num", 6115868.37)),
      N("2024", "period"), S("$5.76M", "2025 = 5,757,281", ("num", 5757281.23)), N("2025", "period"),
      S("5.2%", "6.116 / 6.452 - 1 = -5.21%", ("num", 5.205)), S("5.9%", "5.757 / 6.116 - 1 = -5.86%", ("num", 5.863)),
      S("about 11%", "5.757 / 6.452 - 1 = -10.8%", ("hedge", 10.76)), U("89%", "retention is not among the references")]),

case(46, ["level", "derived-share", "derived-one-in-n", "hedge", "attached-unit", "prose"],
     "How much did we pay on 2024 claims, split between indemnity and adjusting expense?",
     [kpil("total_paid", "indemnity", year=2024), kpil("total_paid", "expense", year=2024, payment_type="expense"),
      kpil("total_paid", "total", year=2024, payment_type="all")],
     "In 2024 we paid $5.2M in total on that year's claims: $4.76M indemnity and $414K of adjusting expense. "
     "Expense is therefore about 8.5% of the total, or roughly one dollar in twelve; about 60% of it went to outside adjusters.",
     [N("2024", "period qualifier"), S("$5.2M", "all = 5,202,526", ("num", 5202525.79)), S("$4.76M", "indemnity = 4,761,423", ("num", 4761422.71)),
      C("$414K", "expense = 441,103 (digits swapped, 6% low)", ("num", 441103.08)),
      S("about 8.5%", "441,103 / 5,202,526 = 8.48%", ("hedge", 8.48)),
      S("one dollar in twelve", "5,202,526 / 441,103 = 11.8 -> 12", ("onein", 12, 11.79)), U("about 60%", "the outside-adjuster split is not in the references")]),

case(47, ["date-row-label", "duration", "table", "ranking", "sql-units", "row-shaped"],
     "For claims opened in January–June 2025, how many settled and how long did they take, by opening month?",
     [sql(Q["monthly_days_2025"])],
     "| Opened in | Settled claims | Avg. time to settle |\n|---|---|---|\n"
     "| Jan 2025 | 71 | 5.6 weeks |\n| Feb 2025 | 46 | 5.1 weeks |\n| Mar 2025 | 86 | 4.4 weeks |\n"
     "| Apr 2025 | 57 | 5.5 weeks |\n| May 2025 | 64 | 4.5 weeks |\n| Jun 2025 | 57 | 4.6 weeks |\n\n"
     "June-opened claims closed fastest and January's slowest. For comparison, Q2 2024 openings averaged 5.9 weeks.",
     [N("Jan 2025", "row label"), C("71", "2025-01-01 settled 77", ("num", 77)), S("5.6 weeks", "39.05 days = 5.58 weeks", ("num", 5.579)),
      N("Feb 2025", "row label"), S("46", "2025-02-01 46", ("num", 46)), S("5.1 weeks", "35.44 days = 5.06 weeks", ("num", 5.063)),
      N("Mar 2025", "row label"), C("86", "2025-03-01 settled 68", ("num", 68)), C("4.4 weeks", "33.85 days = 4.84 weeks", ("num", 4.836)),
      N("Apr 2025", "row label"), S("57", "2025-04-01 57", ("num", 57), "| 57 | 5.5"), S("5.5 weeks", "38.63 days = 5.52 weeks", ("num", 5.519)),
      N("May 2025", "row label"), S("64", "2025-05-01 64", ("num", 64)), C("4.5 weeks", "37.77 days = 5.40 weeks", ("num", 5.396)),
      N("Jun 2025", "row label"), S("57", "2025-06-01 57", ("num", 57), "| 57 | 4.6"), S("4.6 weeks", "32.22 days = 4.60 weeks", ("num", 4.603)),
      S("June-opened claims closed fastest", "32.22 days is the lowest", ("rank", True)),
      S("January's slowest", "39.05 days is the highest", ("rank", True)), N("Q2 2024", "period label"), U("5.9 weeks", "2024 is not in the reference")]),

case(48, ["ranking", "derived-ratio", "hedge", "sql-units", "attached-unit", "prose"],
     "Which causes of loss carry the highest average initial reserve for 2024 claims?",
     [sql(Q["reserve_by_cause_2024"], column_units={"claims": "count", "avg_reserve": "currency"})],
     "Freeze claims carry the highest average initial reserve at $7,850 (28 claims), then water damage at $7.45K (109) "
     "and liability at $6,950 (136). Collision is by far the most frequent cause — 351 claims — but reserves only about $5.1K each. "
     "Glass is the cheapest at $4,326; a freeze claim is reserved at roughly 1.8x a glass claim. Fire reserves were up 12% on 2023.",
     [S("Freeze claims carry the highest average initial reserve", "7,850 is the highest", ("rank", True)),
      S("$7,850", "Freeze 7,850.00", ("num", 7850.0)), S("28", "Freeze 28", ("num", 28)),
      S("$7.45K", "Water damage 7,449.91", ("num", 7449.91)), S("109", "Water damage 109", ("num", 109)),
      S("$6,950", "Liability 6,950.22", ("num", 6950.22)), S("136", "Liability 136", ("num", 136)),
      S("Collision is by far the most frequent cause", "351 is the most", ("rank", True)), S("351", "Collision 351", ("num", 351)),
      S("about $5.1K", "Collision 5,089.43", ("hedge", 5089.43)),
      S("Glass is the cheapest", "4,326.10 is the lowest", ("rank", True)), S("$4,326", "Glass 4,326.10", ("num", 4326.10)),
      S("roughly 1.8x", "7,850 / 4,326 = 1.81", ("hedge", 1.815)),
      U("12%", "2023 reserves are not in the reference"), N("2023", "period qualifier")]),

case(49, ["level", "signed-comparison", "hedge", "not-a-claim", "sql-units", "row-shaped", "prose"],
     "Compare 2025 claim frequency for Auto 360 and Auto Lite 120.",
     [sql(Q["auto_freq"])],
     "Auto 360: 224 claims on 1,680 policies in force, 15.05 claims per 100 policies. "
     "Auto Lite 120: 165 claims on 1,133 policies, 14.6 per 100. The gap is just 0.5 points — Auto 360 is marginally worse, "
     "and Auto Lite 120 has about 30% fewer policies. A 7% rate increase on Auto 360 is planned.",
     [N("360", "product name", "Auto 360:"), C("224", "Auto 360 claims 242", ("num", 242)),
      C("1,680", "Auto 360 policies_in_force 1,608", ("num", 1608)), S("15.05", "Auto 360 15.05", ("num", 15.05)),
      N("100", "scale anchor", "per 100 policies"),
      N("120", "product name", "Lite 120:"), S("165", "Auto Lite 120 claims 165", ("num", 165)), S("1,133", "Auto Lite 120 policies 1,133", ("num", 1133)),
      S("14.6", "Auto Lite 120 14.56", ("num", 14.56)), N("100", "scale anchor", "14.6 per 100"),
      S("0.5 points", "15.05 - 14.56 = 0.49", ("num", 0.49)), S("Auto 360 is marginally worse", "15.05 > 14.56", ("rank", True)),
      N("120", "product name", "Lite 120 has"), S("about 30% fewer", "1,133 / 1,608 - 1 = -29.5%", ("hedge", 29.54)), U("7%", "a planned rate change; not in the reference"), N("360", "product name", "on Auto 360")]),

case(50, ["derived-growth", "derived-share", "level", "hedge", "sql-units", "prose"],
     "How did the severity mix change between 2023 and 2025?",
     [sql(Q["sev_by_year"])],
     "Low-severity claims grew from 360 to 383 (+6.4%), Medium from 213 to 258 (+11.7%), while High fell from 136 to 121 (-11%). "
     "Severe rose from 38 to 49, up 29%. High and Severe together made up 22.7% of 2025 claims, against about 23% in 2023.",
     [S("360", "2023 low 360", ("num", 360)), S("383", "2025 low 383", ("num", 383)), S("+6.4%", "383 / 360 - 1 = 6.39%", ("num", 6.39)),
      C("213", "2023 medium 231", ("num", 231)), S("258", "2025 medium 258", ("num", 258)), S("+11.7%", "258 / 231 - 1 = 11.69%", ("num", 11.69)),
      S("136", "2023 high 136", ("num", 136)), C("121", "2025 high 112", ("num", 112)), C("-11%", "112 / 136 - 1 = -17.6%", ("num", 17.65)),
      S("38", "2023 severe 38", ("num", 38), "from 38 to"), S("49", "2025 severe 49", ("num", 49)), S("29%", "49 / 38 - 1 = 28.9%", ("num", 28.95)),
      C("22.7%", "(112 + 49) / 802 = 20.1%", ("num", 20.07)), N("2025", "period qualifier", "of 2025 claims"),
      S("about 23%", "(136 + 38) / 765 = 22.7%", ("hedge", 22.75)), N("2023", "period qualifier", "in 2023")]),

case(51, ["duration", "bullets", "hedge", "derived-ratio", "sql-units", "row-shaped"],
     "How many days does it take from first notice to the first indemnity payment, by severity, for 2025 claims?",
     [sql(Q["first_pay_days_sev"], column_units={"days_to_first_payment": "days"})],
     "Days from FNOL to first indemnity payment, 2025 claims:\n\n- Low: 13.4 days\n- Medium: 19.6 days (about 470 hours)\n"
     "- High: 35.5 days — roughly 5 weeks\n- Severe: 77.1 days, 11 weeks\n\n"
     "Severe claims wait nearly 6x as long as Low ones for a first cheque. Medium improved by 3 days on 2024.",
     [N("2025", "period qualifier"), S("13.4 days", "Low 13.4", ("num", 13.4)), S("19.6 days", "Medium 19.6", ("num", 19.6)),
      S("about 470 hours", "19.6 days = 470.4 h", ("hedge", 470.4)), S("35.5 days", "High 35.5", ("num", 35.5)),
      S("roughly 5 weeks", "35.5 days = 5.07 weeks", ("hedge", 5.07)), S("77.1 days", "Severe 77.1", ("num", 77.1)),
      S("11 weeks", "77.1 days = 11.01 weeks", ("num", 11.01)), S("nearly 6x", "77.1 / 13.4 = 5.75", ("hedge", 5.75)),
      U("3 days", "2024 is not in the reference"), N("2024", "period qualifier")]),

case(52, ["derived-share", "derived-one-in-n", "level", "sql-units", "prose"],
     "How many policy terms that ended in 2024 lapsed instead of renewing?",
     [sql(Q["lapse_2024"])],
     "403 of the 3,867 policy terms that ended in 2024 lapsed — 10.4%, or about one in 10. That's up from 8.9% in 2023.",
     [S("403", "lapsed 403", ("num", 403)), S("3,867", "terms_ending_2024 3,867", ("num", 3867)), N("2024", "period qualifier"),
      S("10.4%", "403 / 3,867 = 10.42%", ("num", 10.42)), S("one in 10", "3,867 / 403 = 9.6 -> 10", ("onein", 10, 9.6)),
      U("8.9%", "2023 is not in the reference"), N("2023", "period qualifier")]),

case(53, ["row-shaped", "table", "ranking", "derived-ratio", "hedge", "not-a-claim", "sql-units"],
     "What was the average annual premium per product for policies written in 2025?",
     [sql(Q["avg_premium_product_2025"], column_units={"policies_written": "count", "avg_premium": "currency"})],
     "| Product | Policies written | Avg premium |\n|---|---|---|\n"
     "| Fleet 25 | 133 | $11,104 |\n| Business Owner 2000 | 95 | $4,385 |\n| Home Plus 500 | 573 | $1,972 |\n"
     "| Auto 360 | 775 | $1,773 |\n| Home Basic 250 | 461 | $1,117 |\n| Auto Lite 120 | 536 | $1,065 |\n"
     "| Condo 300 | 271 | $848 |\n| Renters 100 | 292 | $238 |\n\n"
     "Auto 360 wrote the most policies, and we wrote 2,580 in all. A Fleet 25 policy costs about 39 times a Renters 100 policy.",
     [N("25", "product name", "| Fleet 25 |"), S("133", "Fleet 25 133", ("num", 133)), S("$11,104", "Fleet 25 11,103.54", ("num", 11103.54)),
      N("2000", "product name"), S("95", "BO 2000 95", ("num", 95)), C("$4,385", "BO 2000 avg 4,835.05 (digits swapped)", ("num", 4835.05)),
      N("500", "product name"), C("573", "Home Plus 500 wrote 537", ("num", 537)), S("$1,972", "Home Plus 500 1,971.65", ("num", 1971.65)),
      N("360", "product name", "| Auto 360 |"), C("775", "Auto 360 wrote 755", ("num", 755)), S("$1,773", "Auto 360 1,773.03", ("num", 1773.03)),
      N("250", "product name"), S("461", "HB 250 461", ("num", 461)), C("$1,117", "Home Basic 250 avg 1,171.71", ("num", 1171.71)),
      N("120", "product name"), S("536", "AL 120 536", ("num", 536)), S("$1,065", "AL 120 1,065.44", ("num", 1065.44)),
      N("300", "product name"), S("271", "Condo 300 271", ("num", 271)), S("$848", "Condo 300 847.95", ("num", 847.95)),
      N("100", "product name", "| Renters 100 |"), S("292", "Renters 100 292", ("num", 292)), C("$238", "Renters 100 avg 283.34", ("num", 283.34)),
      S("Auto 360 wrote the most policies", "755 is the most", ("rank", True)), C("2,580", "sum of policies_written = 3,080", ("num", 3080)),
      N("25", "product name", "A Fleet 25"), S("about 39 times", "11,103.54 / 283.34 = 39.2", ("hedge", 39.19)),
      N("100", "product name", "a Renters 100")]),

case(54, ["duration", "derived-growth", "hedge", "not-a-claim", "sql-units", "prose"],
     "How has Robert King's (ADJ-104) caseload and settlement speed changed over 2023–2025?",
     [sql(Q["adj104_years"], label="ADJ-104")],
     "Robert King (ADJ-104) handled 70 claims in 2023, 94 in 2024 and 75 in 2025. His average time to settle has edged down: "
     "896.8 hours (37.4 days) in 2023, 885.3 hours in 2024 and 870.2 hours — about 36.3 days — in 2025. "
     "Caseload grew 34% in 2024 before falling back 20%, and he is still faster than the 38.5-day company average.",
     [N("ADJ-104", "adjuster id"), S("70", "2023 claims 70", ("num", 70), "handled 70"), N("2023", "period", "70 claims in 2023"),
      S("94", "2024 claims 94", ("num", 94)), N("2024", "period", "94 in 2024"), S("75", "2025 claims 75", ("num", 75)),
      N("2025", "period", "75 in 2025"), S("896.8 hours", "2023 896.8 h", ("num", 896.8)),
      S("37.4 days", "896.8 h = 37.37 days", ("num", 37.37)), N("2023", "period", "days) in 2023"),
      S("885.3 hours", "2024 885.3 h", ("num", 885.3)), N("2024", "period", "hours in 2024"),
      S("870.2 hours", "2025 870.2 h", ("num", 870.2)), S("about 36.3 days", "870.2 h = 36.26 days", ("hedge", 36.26)),
      N("2025", "period", "— in 2025"), S("34%", "94 / 70 - 1 = 34.3%", ("num", 34.29)), N("2024", "period", "34% in 2024"),
      S("20%", "75 / 94 - 1 = -20.2%", ("num", 20.21)),
      U("38.5-day", "company average is not in the reference")]),
]
