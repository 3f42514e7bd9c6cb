//! Today's date, the one fact every validation gets without AWS.

/// Today (UTC) by this machine's clock, for the rules that depend on the day (Kubernetes
/// version support); `EKS_STUDIO_TODAY=YYYY-MM-DD` sets another day, for reproducible runs.
pub fn today() -> shared::catalog::versions::Date {
    if let Some(date) = std::env::var("EKS_STUDIO_TODAY")
        .ok()
        .and_then(|text| shared::catalog::versions::Date::parse(&text))
    {
        return date;
    }
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    shared::catalog::versions::Date::from_days_since_epoch((seconds / 86_400) as i64)
}

/// The facts every validation gets without AWS: today's date.
pub fn todays_facts() -> shared::rules::LiveFacts {
    shared::rules::LiveFacts::on(today())
}
