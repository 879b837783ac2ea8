"""Writes ../bkg.json (kept as Python so the KPI sources stay readable)."""
import json
from pathlib import Path

REGIONS = ["Northeast", "Southeast", "Midwest", "Southwest", "Pacific"]
PRODUCTS = ["Home Plus 500", "Home Basic 250", "Condo 300", "Renters 100", "Auto 360",
            "Auto Lite 120", "Fleet 25", "Business Owner 2000"]
SEVERITIES = ["Low", "Medium", "High", "Severe"]

def col(name, type_, desc):
    return {"name": name, "type": type_, "description": desc}

tables = [
    {"name": "regions", "description": "Claims regions of the insurer, each run from a hub office.",
     "columns": [col("region_id", "integer", "Region id."),
                 col("region_name", "text", "Region name: Northeast, Southeast, Midwest, Southwest, Pacific."),
                 col("hub_city", "text", "City of the regional claims hub.")],
     "primary_key": ["region_id"]},
    {"name": "products", "description": "Insurance products sold (policy forms).",
     "columns": [col("product_id", "integer", "Product id."),
                 col("product_name", "text", "Marketing name, e.g. 'Home Plus 500', 'Auto 360', 'Fleet 25'."),
                 col("line_of_business", "text", "homeowners, renters, personal auto, commercial auto, commercial property."),
                 col("base_premium", "real", "List annual premium in USD before rating.")],
     "primary_key": ["product_id"]},
    {"name": "adjusters", "description": "Claims adjusters; each works the claims of one region.",
     "columns": [col("adjuster_id", "text", "Adjuster id such as 'ADJ-104'."),
                 col("adjuster_name", "text", "Full name."),
                 col("region_id", "integer", "Home region."),
                 col("hired_on", "date", "Hire date.")],
     "primary_key": ["adjuster_id"]},
    {"name": "policyholders", "description": "Customers holding policies (people or companies).",
     "columns": [col("policyholder_id", "integer", "Policyholder id."),
                 col("full_name", "text", "Person or company name."),
                 col("holder_type", "text", "personal or commercial."),
                 col("region_id", "integer", "Region of the insured risk."),
                 col("customer_since", "date", "First policy date.")],
     "primary_key": ["policyholder_id"]},
    {"name": "policies", "description": "One row per 12-month policy term; a renewal is a new row.",
     "columns": [col("policy_id", "integer", "Policy term id."),
                 col("policy_number", "text", "Policy number, e.g. 'FL25-104233'."),
                 col("policyholder_id", "integer", "Insured."),
                 col("product_id", "integer", "Product."),
                 col("start_date", "date", "Inception of the term."),
                 col("end_date", "date", "Last day of cover."),
                 col("annual_premium", "real", "Written premium of the term in USD."),
                 col("status", "text", "active, expired or lapsed.")],
     "primary_key": ["policy_id"]},
    {"name": "claims", "description": "First notice of loss to settlement. Snapshot taken 2026-01-01 00:00.",
     "columns": [col("claim_id", "integer", "Claim id."),
                 col("claim_number", "text", "Claim number, e.g. 'CLM-24-01234'."),
                 col("policy_id", "integer", "Policy term the loss falls under."),
                 col("adjuster_id", "text", "Assigned adjuster."),
                 col("cause", "text", "Cause of loss: Collision, Water damage, Wind and hail, Theft, Fire, Glass, Liability, Freeze."),
                 col("severity_band", "text", "Low, Medium, High or Severe."),
                 col("opened_at", "timestamp", "When the claim was opened (first notice of loss)."),
                 col("closed_at", "timestamp", "Final closing time; NULL while open."),
                 col("status", "text", "open, closed (settled) or denied."),
                 col("reopened", "integer", "1 when the claim was closed, then reopened before its final close."),
                 col("reopened_at", "timestamp", "When it was reopened."),
                 col("initial_reserve", "real", "Case reserve set at first notice, USD.")],
     "primary_key": ["claim_id"],
     "fingerprint": {"row_count": True, "columns": ["claim_id"]}},
    {"name": "payments", "description": "Money paid on claims: indemnity (to the insured or third parties) and expense (adjusting costs).",
     "columns": [col("payment_id", "integer", "Payment id."),
                 col("claim_id", "integer", "Claim."),
                 col("payment_type", "text", "indemnity or expense."),
                 col("paid_on", "date", "Payment date."),
                 col("amount", "real", "Amount in USD.")],
     "primary_key": ["payment_id"],
     "fingerprint": {"row_count": True, "columns": ["payment_id"]}},
]

relationships = [
    {"from": "adjusters.region_id", "to": "regions.region_id"},
    {"from": "policyholders.region_id", "to": "regions.region_id"},
    {"from": "policies.policyholder_id", "to": "policyholders.policyholder_id"},
    {"from": "policies.product_id", "to": "products.product_id"},
    {"from": "claims.policy_id", "to": "policies.policy_id"},
    {"from": "claims.adjuster_id", "to": "adjusters.adjuster_id"},
    {"from": "payments.claim_id", "to": "claims.claim_id"},
]

P_YEAR_REQ = {"name": "year", "type": "integer", "required": True, "description": "Accident year: the calendar year the claims were opened."}
P_YEAR = {"name": "year", "type": "integer", "description": "Accident year (year the claims were opened); all years when omitted."}
P_REGION = {"name": "region", "type": "string", "enum": REGIONS, "description": "Region of the insured risk."}
P_PRODUCT = {"name": "product", "type": "string", "enum": PRODUCTS, "description": "Product name."}
P_SEV = {"name": "severity", "type": "string", "enum": SEVERITIES, "description": "Severity band."}

# helper shared by several sources (must be identical everywhere)
FILTERS = '''
def _claim_filters(year=None, region=None, product=None, severity=None):
    where = ["1=1"]
    binds = {}
    if year is not None:
        where.append("strftime('%Y', c.opened_at) = :year")
        binds["year"] = str(year)
    if region is not None:
        where.append("r.region_name = :region")
        binds["region"] = region
    if product is not None:
        where.append("pr.product_name = :product")
        binds["product"] = product
    if severity is not None:
        where.append("c.severity_band = :severity")
        binds["severity"] = severity
    return " AND ".join(where), binds

_CLAIM_JOINS = (" FROM claims c JOIN policies p ON p.policy_id = c.policy_id"
                " JOIN products pr ON pr.product_id = p.product_id"
                " JOIN policyholders h ON h.policyholder_id = p.policyholder_id"
                " JOIN regions r ON r.region_id = h.region_id")
'''

kpis = []
def kpi(name, desc, unit, params, tabs, src, returns="scalar", column_units=None, helper=True):
    f = {"name": name, "description": desc, "params": params, "tables": tabs,
         "returns": returns, "python_function": (FILTERS if helper else "") + src}
    if unit:
        f["unit"] = unit
    if column_units:
        f["column_units"] = column_units
    return f

ALL = ["claims", "policies", "products", "policyholders", "regions"]

kpis.append(kpi("claim_count", "Number of claims opened (first notice of loss), optionally in one accident year, region, product or severity band. Denied and open claims count.", "count",
    [P_YEAR, P_REGION, P_PRODUCT, P_SEV], ALL, '''
def claim_count(db, year=None, region=None, product=None, severity=None):
    where, binds = _claim_filters(year, region, product, severity)
    return db.scalar("SELECT COUNT(*)" + _CLAIM_JOINS + " WHERE " + where, **binds)
'''))

kpis.append(kpi("policies_in_force", "Policy terms in force at any time during the year (start_date on or before 31 December and end_date on or after 1 January), optionally for one product.", "count",
    [P_YEAR_REQ, P_PRODUCT], ["policies", "products"], '''
def policies_in_force(db, year, product=None):
    sql = ("SELECT COUNT(*) FROM policies p JOIN products pr ON pr.product_id = p.product_id"
           " WHERE p.start_date <= :ye AND p.end_date >= :ys")
    binds = {"ys": f"{year}-01-01", "ye": f"{year}-12-31"}
    if product is not None:
        sql += " AND pr.product_name = :product"
        binds["product"] = product
    return db.scalar(sql, **binds)
''', helper=False))

kpis.append(kpi("claim_frequency", "Claim frequency: claims opened in the year per 100 policy terms in force during the year, as a percent.", "percent",
    [P_YEAR_REQ, P_PRODUCT], ALL, '''
def claim_frequency(db, year, product=None):
    return 100.0 * claim_count(db, year=year, product=product) / policies_in_force(db, year=year, product=product)
'''))

core_nodes = [kpi("written_premium", "Written premium: annual premium of the policy terms that incepted (start_date) in the year, USD; optionally one product or region.", "currency",
    [P_YEAR_REQ, P_PRODUCT, P_REGION], ["policies", "products", "policyholders", "regions"], '''
def written_premium(db, year, product=None, region=None):
    sql = ("SELECT COALESCE(SUM(p.annual_premium), 0) FROM policies p"
           " JOIN products pr ON pr.product_id = p.product_id"
           " JOIN policyholders h ON h.policyholder_id = p.policyholder_id"
           " JOIN regions r ON r.region_id = h.region_id"
           " WHERE strftime('%Y', p.start_date) = :year")
    binds = {"year": str(year)}
    if product is not None:
        sql += " AND pr.product_name = :product"
        binds["product"] = product
    if region is not None:
        sql += " AND r.region_name = :region"
        binds["region"] = region
    return db.scalar(sql, **binds)
''', helper=False)]

kpis.append(kpi("total_paid", "Paid losses: sum of payments on claims opened in the accident year (indemnity only by default; 'expense' or 'all' to change), USD.", "currency",
    [P_YEAR, P_REGION, P_PRODUCT, {"name": "payment_type", "type": "string", "enum": ["indemnity", "expense", "all"], "default": "indemnity", "description": "Which payments count."}],
    ALL + ["payments"], '''
def total_paid(db, year=None, region=None, product=None, payment_type="indemnity"):
    where, binds = _claim_filters(year, region, product)
    if payment_type != "all":
        where += " AND pay.payment_type = :ptype"
        binds["ptype"] = payment_type
    return db.scalar("SELECT COALESCE(SUM(pay.amount), 0)" + _CLAIM_JOINS +
                     " JOIN payments pay ON pay.claim_id = c.claim_id WHERE " + where, **binds)
'''))

kpis.append(kpi("loss_ratio", "Loss ratio: indemnity paid on claims opened in the accident year divided by the premium written in that year, as a percent; optionally one product.", "percent",
    [P_YEAR_REQ, P_PRODUCT], ALL + ["payments"], '''
def loss_ratio(db, year, product=None):
    return 100.0 * total_paid(db, year=year, product=product) / written_premium(db, year=year, product=product)
'''))

kpis.append(kpi("avg_paid_per_claim", "Average indemnity paid per paid claim: indemnity paid on claims opened in the year divided by the number of those claims with any indemnity payment, USD.", "currency",
    [P_YEAR, P_REGION, P_PRODUCT], ALL + ["payments"], '''
def avg_paid_per_claim(db, year=None, region=None, product=None):
    where, binds = _claim_filters(year, region, product)
    return db.scalar("SELECT SUM(pay.amount) / COUNT(DISTINCT c.claim_id)" + _CLAIM_JOINS +
                     " JOIN payments pay ON pay.claim_id = c.claim_id WHERE pay.payment_type = 'indemnity' AND " + where, **binds)
'''))

kpis.append(kpi("avg_settlement_hours", "Average settlement time: hours from opened_at to closed_at over settled claims (status 'closed') opened in the year; denied and open claims are left out.", "hours",
    [P_YEAR, P_REGION, P_PRODUCT, P_SEV], ALL, '''
def avg_settlement_hours(db, year=None, region=None, product=None, severity=None):
    where, binds = _claim_filters(year, region, product, severity)
    return db.scalar("SELECT AVG((julianday(c.closed_at) - julianday(c.opened_at)) * 24.0)" + _CLAIM_JOINS +
                     " WHERE c.status = 'closed' AND " + where, **binds)
'''))

kpis.append(kpi("settlement_days_by_severity", "Average settlement time in days per severity band, settled claims opened in the year.", "days",
    [P_YEAR_REQ], ["claims"], '''
def settlement_days_by_severity(db, year):
    df = db.query("SELECT severity_band, AVG(julianday(closed_at) - julianday(opened_at)) AS avg_days"
                  " FROM claims WHERE status = 'closed' AND strftime('%Y', opened_at) = :year"
                  " GROUP BY severity_band", year=str(year))
    return {row.severity_band: float(row.avg_days) for row in df.itertuples()}
''', returns="mapping", helper=False))

kpis.append(kpi("reopen_rate", "Reopen rate: share of settled claims (status 'closed') opened in the year that were reopened at least once, percent.", "percent",
    [P_YEAR_REQ], ["claims"], '''
def reopen_rate(db, year):
    return db.scalar("SELECT 100.0 * SUM(reopened) / COUNT(*) FROM claims WHERE status = 'closed'"
                     " AND strftime('%Y', opened_at) = :year", year=str(year))
''', helper=False))

kpis.append(kpi("denial_rate", "Denial rate: denied claims over decided claims (closed or denied) opened in the year, percent.", "percent",
    [P_YEAR_REQ], ["claims"], '''
def denial_rate(db, year):
    return db.scalar("SELECT 100.0 * SUM(status = 'denied') / COUNT(*) FROM claims"
                     " WHERE status IN ('closed', 'denied') AND strftime('%Y', opened_at) = :year", year=str(year))
''', helper=False))

kpis.append(kpi("open_claims", "Claims open at the end of the given day: opened on or before it and not finally closed by then.", "count",
    [{"name": "as_of", "type": "date", "required": True, "description": "The day (inclusive)."}], ["claims"], '''
def open_claims(db, as_of):
    return db.scalar("SELECT COUNT(*) FROM claims WHERE opened_at < date(:d, '+1 day')"
                     " AND (closed_at IS NULL OR closed_at >= date(:d, '+1 day'))", d=as_of)
''', helper=False))

kpis.append(kpi("claims_per_adjuster", "Claims per adjuster: claims opened in the year divided by the number of adjusters assigned at least one of them.", "number",
    [P_YEAR_REQ], ["claims"], '''
def claims_per_adjuster(db, year):
    return db.scalar("SELECT 1.0 * COUNT(*) / COUNT(DISTINCT adjuster_id) FROM claims"
                     " WHERE strftime('%Y', opened_at) = :year", year=str(year))
''', helper=False))

kpis.append(kpi("adjuster_workload", "Per adjuster, claims opened in the year: claims handled, settled claims, average settlement days of the settled ones, and indemnity paid on them.", None,
    [P_YEAR_REQ], ["claims", "adjusters", "regions", "payments"], '''
def adjuster_workload(db, year):
    return db.query("""
        SELECT a.adjuster_id, a.adjuster_name, r.region_name AS region,
               COUNT(*) AS claims_handled,
               SUM(c.status = 'closed') AS settled_claims,
               ROUND(AVG(CASE WHEN c.status = 'closed' THEN julianday(c.closed_at) - julianday(c.opened_at) END), 2) AS avg_settlement_days,
               ROUND(COALESCE(SUM(pay.paid), 0), 2) AS indemnity_paid
        FROM claims c
        JOIN adjusters a ON a.adjuster_id = c.adjuster_id
        JOIN regions r ON r.region_id = a.region_id
        LEFT JOIN (SELECT claim_id, SUM(amount) AS paid FROM payments WHERE payment_type = 'indemnity' GROUP BY claim_id) pay
               ON pay.claim_id = c.claim_id
        WHERE strftime('%Y', c.opened_at) = :year
        GROUP BY a.adjuster_id, a.adjuster_name, r.region_name
        ORDER BY claims_handled DESC, a.adjuster_id""", year=str(year))
''', returns="table", column_units={"claims_handled": "count", "settled_claims": "count", "avg_settlement_days": "days", "indemnity_paid": "currency"}, helper=False))

kpis.append(kpi("monthly_claims", "Per calendar month of the year (month_start = first day of the month): claims opened, High or Severe claims opened, and indemnity paid on the claims opened that month.", None,
    [P_YEAR_REQ], ["claims", "payments"], '''
def monthly_claims(db, year):
    return db.query("""
        SELECT strftime('%Y-%m-01', c.opened_at) AS month_start,
               COUNT(*) AS claims_opened,
               SUM(c.severity_band IN ('High', 'Severe')) AS high_severity_claims,
               ROUND(COALESCE(SUM(pay.paid), 0), 2) AS indemnity_paid
        FROM claims c
        LEFT JOIN (SELECT claim_id, SUM(amount) AS paid FROM payments WHERE payment_type = 'indemnity' GROUP BY claim_id) pay
               ON pay.claim_id = c.claim_id
        WHERE strftime('%Y', c.opened_at) = :year
        GROUP BY month_start ORDER BY month_start""", year=str(year))
''', returns="table", column_units={"claims_opened": "count", "high_severity_claims": "count", "indemnity_paid": "currency"}, helper=False))

kpis.append(kpi("weekly_claims", "Per ISO week (week_start = the Monday) between two dates inclusive: claims opened and their average initial reserve.", None,
    [{"name": "start_date", "type": "date", "required": True, "description": "First day (inclusive)."},
     {"name": "end_date", "type": "date", "required": True, "description": "Last day (inclusive)."}], ["claims"], '''
def weekly_claims(db, start_date, end_date):
    return db.query("""
        SELECT date(opened_at, '-' || ((CAST(strftime('%w', opened_at) AS INTEGER) + 6) % 7) || ' days') AS week_start,
               COUNT(*) AS claims_opened,
               ROUND(AVG(initial_reserve), 2) AS avg_initial_reserve
        FROM claims
        WHERE opened_at >= :s AND opened_at < date(:e, '+1 day')
        GROUP BY week_start ORDER BY week_start""", s=start_date, e=end_date)
''', returns="table", column_units={"claims_opened": "count", "avg_initial_reserve": "currency"}, helper=False))

kpis.append(kpi("region_summary", "Per region, accident year: claims opened, indemnity paid on them, loss ratio (indemnity over the region's written premium, percent) and average settlement days of settled claims.", None,
    [P_YEAR_REQ], ALL + ["payments"], '''
def region_summary(db, year):
    return db.query("""
        WITH cl AS (
            SELECT r.region_name, c.claim_id, c.status, c.opened_at, c.closed_at
            FROM claims c JOIN policies p ON p.policy_id = c.policy_id
            JOIN policyholders h ON h.policyholder_id = p.policyholder_id
            JOIN regions r ON r.region_id = h.region_id
            WHERE strftime('%Y', c.opened_at) = :year),
        paid AS (
            SELECT cl.region_name, SUM(pay.amount) AS paid FROM cl
            JOIN payments pay ON pay.claim_id = cl.claim_id AND pay.payment_type = 'indemnity'
            GROUP BY cl.region_name),
        prem AS (
            SELECT r.region_name, SUM(p.annual_premium) AS premium FROM policies p
            JOIN policyholders h ON h.policyholder_id = p.policyholder_id
            JOIN regions r ON r.region_id = h.region_id
            WHERE strftime('%Y', p.start_date) = :year GROUP BY r.region_name)
        SELECT cl.region_name AS region, COUNT(*) AS claims,
               ROUND(paid.paid, 2) AS indemnity_paid,
               ROUND(100.0 * paid.paid / prem.premium, 2) AS loss_ratio_pct,
               ROUND(AVG(CASE WHEN cl.status = 'closed' THEN julianday(cl.closed_at) - julianday(cl.opened_at) END), 2) AS avg_settlement_days
        FROM cl JOIN paid ON paid.region_name = cl.region_name JOIN prem ON prem.region_name = cl.region_name
        GROUP BY cl.region_name ORDER BY claims DESC""", year=str(year))
''', returns="table", column_units={"claims": "count", "indemnity_paid": "currency", "loss_ratio_pct": "percent", "avg_settlement_days": "days"}, helper=False))

kpis.append(kpi("claims_by_product", "Claims opened in the accident year per product name.", "count",
    [P_YEAR_REQ], ["claims", "policies", "products"], '''
def claims_by_product(db, year):
    df = db.query("SELECT pr.product_name, COUNT(*) AS n FROM claims c JOIN policies p ON p.policy_id = c.policy_id"
                  " JOIN products pr ON pr.product_id = p.product_id WHERE strftime('%Y', c.opened_at) = :year"
                  " GROUP BY pr.product_name", year=str(year))
    return {row.product_name: int(row.n) for row in df.itertuples()}
''', returns="mapping", helper=False))

kpis.append(kpi("paid_to_reserve", "Paid-to-reserve ratio: indemnity paid on settled claims opened in the year over their initial case reserves, percent (below 100 = reserves were adequate).", "percent",
    [P_YEAR_REQ], ["claims", "payments"], '''
def paid_to_reserve(db, year):
    return db.scalar("""
        SELECT 100.0 * SUM(COALESCE(pay.paid, 0)) / SUM(c.initial_reserve) FROM claims c
        LEFT JOIN (SELECT claim_id, SUM(amount) AS paid FROM payments WHERE payment_type = 'indemnity' GROUP BY claim_id) pay
               ON pay.claim_id = c.claim_id
        WHERE c.status = 'closed' AND strftime('%Y', c.opened_at) = :year""", year=str(year))
''', helper=False))

decisions = [kpi("large_loss_count", "Large losses: claims opened in the year whose indemnity paid reaches the large-loss threshold (USD 25,000 by default) and are referred to the large-loss unit.", "count",
    [P_YEAR_REQ, {"name": "threshold", "type": "number", "default": 25000, "description": "Large-loss threshold, USD."}], ["claims", "payments"], '''
def large_loss_count(db, year, threshold=25000):
    return db.scalar("""
        SELECT COUNT(*) FROM (SELECT c.claim_id, SUM(pay.amount) AS paid FROM claims c
        JOIN payments pay ON pay.claim_id = c.claim_id AND pay.payment_type = 'indemnity'
        WHERE strftime('%Y', c.opened_at) = :year GROUP BY c.claim_id) t WHERE paid >= :t""",
        year=str(year), t=threshold)
''', helper=False)]

glossary = [
    {"term": "accident year", "definition": "The calendar year a claim was opened; KPIs with a year param group claims by it."},
    {"term": "loss ratio", "definition": "Indemnity paid on an accident year's claims over the premium written that year."},
    {"term": "claim frequency", "definition": "Claims opened per 100 policy terms in force during the year."},
    {"term": "settlement time", "definition": "Time from first notice of loss (opened_at) to final close (closed_at) of a settled claim."},
    {"term": "reopen rate", "definition": "Share of settled claims that were reopened at least once before their final close."},
    {"term": "indemnity", "definition": "Money paid to make the insured (or a third party) whole; excludes adjusting expense."},
    {"term": "case reserve", "definition": "The adjuster's initial estimate of what a claim will cost (initial_reserve)."},
    {"term": "large loss", "definition": "A claim whose indemnity reaches USD 25,000."},
    {"term": "severity band", "definition": "Low, Medium, High or Severe, set at first notice."},
]

bkg = {"name": "insurance_claims", "description": "A property & casualty insurer's claims operation: policies, policyholders, claims, payments, adjusters and regions (data to 31 December 2025).",
       "tables": tables, "relationships": relationships, "kpis": kpis, "decisions": decisions,
       "core_nodes": core_nodes, "glossary": glossary}
Path(__file__).resolve().parent.parent.joinpath("bkg.json").write_text(json.dumps(bkg, indent=2) + "\n")
print(len(kpis), "kpis")
