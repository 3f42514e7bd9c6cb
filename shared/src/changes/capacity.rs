//! The capacity a plan's node groups run on, as EC2 describes it when the plan is made
//! (`DescribeCapacityReservations`): sizes a reservation can never hold, and a Capacity
//! Block's clock (its end, the time left, a step that would still be waiting when EC2
//! ends the block's instances).

use super::Plan;
use crate::catalog::versions::UtcMinute;
use crate::model::spec::{Capacity, Spec};
use crate::rules::ReservationFact;
use crate::rules::changes::{
    CAPACITY_BLOCK_CLOCK, CAPACITY_BLOCK_ENDS_DURING_STEP, SIZE_BEYOND_RESERVATION,
};

/// The reservations a plan's groups run on, read when the plan was made.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReservationsRead {
    /// Each reservation the design's groups name that EC2 describes.
    pub facts: Vec<ReservationFact>,
    /// When they were read (RFC 3339, UTC).
    pub at: String,
}

/// Minutes in a wait as a peer writes it (`25m`, `300s`, `1h`).
fn wait_minutes(text: &str) -> Option<i64> {
    let text = text.trim();
    let (number, unit) = text.split_at(text.find(|char: char| !char.is_ascii_digit())?);
    let number: i64 = number.parse().ok()?;
    match unit {
        "s" => Some((number + 59) / 60),
        "m" => Some(number),
        "h" => Some(number * 60),
        _ => None,
    }
}

/// A span of minutes as people say it: `3 d 4 h`, `5 h 10 min`, `25 min`.
fn span(minutes: i64) -> String {
    let (days, hours, minutes) = (minutes / 1440, minutes % 1440 / 60, minutes % 60);
    match (days, hours) {
        (0, 0) => format!("{minutes} min"),
        (0, _) => format!("{hours} h {minutes} min"),
        _ => format!("{days} d {hours} h"),
    }
}

/// Adds to `plan` what the reservations `read` says of the groups of `design`: a group
/// that may run more nodes than its reservation holds, each Capacity Block's end and time
/// left, and a block that ends while one of its group's steps may still be waiting.
pub fn capacity_findings(design: &Spec, read: &ReservationsRead, plan: &mut Plan) {
    let now = UtcMinute::parse(&read.at);
    for group in &design.node_groups {
        let (reservation_id, block) = match &group.capacity {
            Capacity::Reservation { reservation_id } => (reservation_id, false),
            Capacity::CapacityBlock { reservation_id } => (reservation_id, true),
            _ => continue,
        };
        let Some(fact) = read
            .facts
            .iter()
            .find(|fact| fact.id == reservation_id.trim())
        else {
            continue;
        };
        let place = format!("node_groups[{}]", group.name);
        let what = if block {
            "Capacity Block"
        } else {
            "reservation"
        };
        let largest = group
            .max_size
            .into_iter()
            .chain(group.desired_capacity)
            .max();
        if let Some(largest) = largest.filter(|largest| *largest > fact.total_instances) {
            plan.findings.push(SIZE_BEYOND_RESERVATION.finding(
                place.clone(),
                format!(
                    "node group `{}` may run {largest} nodes, but {what} {} holds {} (EC2, now): {} of them can never launch into it",
                    group.name,
                    fact.id,
                    fact.total_instances,
                    largest - fact.total_instances
                ),
            ));
        }
        if !block {
            continue;
        }
        let (Some(end), Some(now)) = (fact.end_date.as_deref().and_then(UtcMinute::parse), now)
        else {
            continue;
        };
        let left = end.0 - now.0;
        let ending_minutes = crate::rules::block_ending_minutes(group);
        let ending = end.0 - ending_minutes;
        let clock = if left > 0 {
            format!("ends {end}, in {}", span(left))
        } else {
            format!("ended {end}")
        };
        plan.findings.push(CAPACITY_BLOCK_CLOCK.finding(
            place.clone(),
            format!(
                "Capacity Block {} of node group `{}` {clock}: EC2 begins ending its instances {ending_minutes} minutes before the end; scale the group to 0 before then, and checkpoint the training on it",
                fact.id, group.name
            ),
        ));
        let longest = plan
            .changes
            .iter()
            .filter(|change| change.kind == "nodegroup" && change.name == group.name)
            .flat_map(|change| &change.steps)
            .filter_map(|step| step.wait.as_ref())
            .filter_map(|wait| Some((wait_minutes(&wait.up_to)?, wait.up_to.clone())))
            .max_by_key(|(minutes, _)| *minutes);
        if let Some((minutes, up_to)) = longest
            && now.0 + minutes > ending
        {
            plan.findings.push(CAPACITY_BLOCK_ENDS_DURING_STEP.finding(
                place,
                format!(
                    "Capacity Block {} of node group `{}` {clock}, and EC2 begins ending its instances {ending_minutes} minutes before: a step of the plan on the group may wait up to {up_to}, so the block's instances may end while it runs",
                    fact.id, group.name
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_and_spans_read_as_the_peers_and_people_write_them() {
        assert_eq!(wait_minutes("25m"), Some(25));
        assert_eq!(wait_minutes("300s"), Some(5));
        assert_eq!(wait_minutes("301s"), Some(6));
        assert_eq!(wait_minutes("1h"), Some(60));
        assert_eq!(wait_minutes("soon"), None);
        assert_eq!(span(25), "25 min");
        assert_eq!(span(310), "5 h 10 min");
        assert_eq!(span(3 * 1440 + 4 * 60 + 5), "3 d 4 h");
    }
}
