//! The Kubernetes versions EKS offers, with their support dates, from AWS's published
//! release calendar (`shared/data/eks-kubernetes-versions.csv`, which cites it), and what a
//! version's support is on a given day.

use std::fmt;
use std::sync::OnceLock;

/// The day the calendar in `eks-kubernetes-versions.csv` was last checked against AWS's.
/// Rules judge support as of this day unless the shell says what today is (the server
/// and the page do; tests rely on this day so their findings do not change with time).
pub const CALENDAR_CHECKED: Date = Date {
    year: 2026,
    month: 12,
    day: 1,
};

/// A calendar day (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year, e.g. 2026.
    pub year: u16,
    /// 1 to 12.
    pub month: u8,
    /// 1 to 31.
    pub day: u8,
}

impl Date {
    /// Parses `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.trim().splitn(3, '-');
        let year = parts.next()?;
        let month = parts.next()?;
        let day = parts.next()?;
        if year.len() != 4 || month.len() != 2 || day.len() != 2 {
            return None;
        }
        let date = Date {
            year: year.parse().ok()?,
            month: month.parse().ok()?,
            day: day.parse().ok()?,
        };
        ((1..=12).contains(&date.month) && (1..=31).contains(&date.day)).then_some(date)
    }

    /// The day `days` days after 1970-01-01 (a Unix time divided by 86,400).
    pub fn from_days_since_epoch(days: i64) -> Date {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = z.rem_euclid(146_097);
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_index = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * month_index + 2) / 5 + 1;
        let month = if month_index < 10 {
            month_index + 3
        } else {
            month_index - 9
        };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        Date {
            year: year.clamp(0, i64::from(u16::MAX)) as u16,
            month: month as u8,
            day: day as u8,
        }
    }
}

impl Date {
    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    pub fn days_since_epoch(self) -> i64 {
        let (month, day) = (i64::from(self.month), i64::from(self.day));
        let year = i64::from(self.year) - i64::from(month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year.rem_euclid(400);
        let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }
}

/// A moment in UTC, to the minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcMinute(pub i64);

impl UtcMinute {
    /// Reads `YYYY-MM-DD` (its midnight), `YYYY-MM-DD HH:MM`, or RFC 3339 in UTC
    /// (`YYYY-MM-DDTHH:MM[:SS[.fff]]` then `Z` or `+00:00`), with an optional ` UTC`.
    pub fn parse(text: &str) -> Option<UtcMinute> {
        let text = text.trim();
        let text = text.strip_suffix("UTC").map(str::trim_end).unwrap_or(text);
        let text = text
            .strip_suffix('Z')
            .or_else(|| text.strip_suffix("+00:00"))
            .unwrap_or(text);
        let (day, clock) = match text.split_once(['T', ' ']) {
            Some((day, clock)) => (day, Some(clock.trim())),
            None => (text, None),
        };
        let date = Date::parse(day)?;
        let days = date.days_since_epoch();
        if Date::from_days_since_epoch(days) != date {
            return None; // 2026-02-30
        }
        let minutes = match clock {
            None => 0,
            Some(clock) => {
                let clock = clock.split('.').next()?;
                let mut parts = clock.split(':');
                let hour: i64 = parts.next().filter(|part| part.len() == 2)?.parse().ok()?;
                let minute: i64 = parts.next().filter(|part| part.len() == 2)?.parse().ok()?;
                if let Some(second) = parts.next() {
                    let second: u8 = second.parse().ok().filter(|_| second.len() == 2)?;
                    if second > 59 {
                        return None;
                    }
                }
                if parts.next().is_some() || hour > 23 || minute > 59 {
                    return None;
                }
                hour * 60 + minute
            }
        };
        Some(UtcMinute(days * 1440 + minutes))
    }

    /// The day it falls on.
    pub fn date(self) -> Date {
        Date::from_days_since_epoch(self.0.div_euclid(1440))
    }
}

impl fmt::Display for UtcMinute {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.0.rem_euclid(1440);
        write!(
            formatter,
            "{} {:02}:{:02} UTC",
            self.date(),
            minutes / 60,
            minutes % 60
        )
    }
}

impl fmt::Display for Date {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{:04}-{:02}-{:02}",
            self.year, self.month, self.day
        )
    }
}

impl serde::Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Date {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Date, D::Error> {
        let text = String::deserialize(deserializer)?;
        Date::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a date (YYYY-MM-DD)")))
    }
}

/// One Kubernetes minor version as EKS offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EksVersion {
    /// `1.35`.
    pub version: &'static str,
    /// The minor number (35).
    pub minor: u32,
    /// When EKS released it.
    pub released: Date,
    /// The last day of standard support is the day before this.
    pub end_of_standard_support: Date,
    /// The day EKS stops offering it.
    pub end_of_extended_support: Date,
}

/// Every version of the calendar, newest first.
pub fn calendar() -> &'static [EksVersion] {
    static CALENDAR: OnceLock<Vec<EksVersion>> = OnceLock::new();
    CALENDAR.get_or_init(|| {
        parse_calendar(include_str!("../../data/eks-kubernetes-versions.csv"))
            .expect("the embedded release calendar reads (tested)")
    })
}

/// Reads the calendar's CSV (comment lines start with `#`; newest version first).
fn parse_calendar(text: &'static str) -> Result<Vec<EksVersion>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.starts_with('#') && !line.trim().is_empty());
    match lines.next() {
        Some((_, "version,eks_release,end_of_standard_support,end_of_extended_support")) => {}
        other => return Err(format!("the calendar's header is {other:?}")),
    }
    let mut versions = Vec::new();
    for (index, line) in lines {
        let fields: Vec<&'static str> = line.split(',').collect();
        let at = |column: usize| -> Result<Date, String> {
            fields
                .get(column)
                .and_then(|field| Date::parse(field))
                .ok_or_else(|| {
                    format!(
                        "calendar line {}: column {} is not a date",
                        index + 1,
                        column + 1
                    )
                })
        };
        let version = fields[0];
        let minor = version
            .strip_prefix("1.")
            .and_then(|minor| minor.parse().ok())
            .ok_or_else(|| format!("calendar line {}: `{version}` is not 1.NN", index + 1))?;
        versions.push(EksVersion {
            version,
            minor,
            released: at(1)?,
            end_of_standard_support: at(2)?,
            end_of_extended_support: at(3)?,
        });
    }
    // The file lists the newest first (a test checks); no sort, which the page would carry.
    Ok(versions)
}

/// What EKS offers for a version on a day.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// In standard support until the day before `ends`.
    Standard {
        /// The first day of extended support.
        ends: Date,
    },
    /// In extended support, at extra cost, until the day before `ends`.
    Extended {
        /// The day EKS stops offering the version.
        ends: Date,
        /// The day standard support ended.
        standard_ended: Date,
    },
    /// No longer offered since `ended`.
    Ended {
        /// The day extended support ended.
        ended: Date,
    },
    /// In the calendar but released after that day.
    NotYetReleased {
        /// The day EKS releases it.
        released: Date,
    },
    /// `1.NN` newer than every version of the calendar: EKS may offer it by now.
    NewerThanCalendar,
    /// `1.NN` older than every version of the calendar: long out of support.
    OlderThanCalendar,
    /// EKS's own list of versions (DescribeClusterVersions) does not have it.
    NotListedByEks {
        /// The versions EKS offers, newest first.
        offered: Vec<String>,
    },
}

/// `1.NN` as its minor number.
pub fn minor_of(version: &str) -> Option<u32> {
    let minor = version.trim().strip_prefix("1.")?;
    if minor.is_empty() || minor.len() > 3 || !minor.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    minor.parse().ok()
}

/// The support of `version` (`1.NN`) on `today`; `None` when it is not `1.NN`.
pub fn support_on(version: &str, today: Date) -> Option<Support> {
    let minor = minor_of(version)?;
    let calendar = calendar();
    let Some(entry) = calendar.iter().find(|entry| entry.minor == minor) else {
        let newest = calendar.first().map_or(0, |entry| entry.minor);
        return Some(if minor > newest {
            Support::NewerThanCalendar
        } else {
            Support::OlderThanCalendar
        });
    };
    Some(if today < entry.released {
        Support::NotYetReleased {
            released: entry.released,
        }
    } else if today < entry.end_of_standard_support {
        Support::Standard {
            ends: entry.end_of_standard_support,
        }
    } else if today < entry.end_of_extended_support {
        Support::Extended {
            ends: entry.end_of_extended_support,
            standard_ended: entry.end_of_standard_support,
        }
    } else {
        Support::Ended {
            ended: entry.end_of_extended_support,
        }
    })
}

/// The support of `version` as EKS's answer lists it: `(version, versionStatus, end of
/// standard support, end of extended support)` for each version, any order. Dates EKS
/// leaves out come from the calendar. `None` when `version` is not `1.NN`.
pub fn support_listed<'a>(
    version: &str,
    listed: impl IntoIterator<Item = (&'a str, &'a str, Option<Date>, Option<Date>)>,
    today: Date,
) -> Option<Support> {
    let minor = minor_of(version)?;
    let calendar = calendar().iter().find(|entry| entry.minor == minor);
    let mut offered: Vec<(u32, &str)> = Vec::new();
    let mut found = None;
    for (name, status, standard_ends, extended_ends) in listed {
        if status != "UNSUPPORTED" {
            offered.push((minor_of(name).unwrap_or(0), name));
        }
        if minor_of(name) == Some(minor) {
            found = Some((status, standard_ends, extended_ends));
        }
    }
    offered.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    let standard_ends = |given: Option<Date>| {
        given
            .or(calendar.map(|entry| entry.end_of_standard_support))
            .unwrap_or(today)
    };
    let extended_ends = |given: Option<Date>| {
        given
            .or(calendar.map(|entry| entry.end_of_extended_support))
            .unwrap_or(today)
    };
    Some(match found {
        Some(("STANDARD_SUPPORT", standard, _)) => Support::Standard {
            ends: standard_ends(standard),
        },
        Some(("EXTENDED_SUPPORT", standard, extended)) => Support::Extended {
            ends: extended_ends(extended),
            standard_ended: standard_ends(standard),
        },
        Some((_, _, extended)) if extended.is_some() || calendar.is_some() => Support::Ended {
            ended: extended_ends(extended),
        },
        _ => Support::NotListedByEks {
            offered: offered
                .into_iter()
                .map(|(_, name)| name.to_owned())
                .collect(),
        },
    })
}

/// The newest version in standard support on `today`.
pub fn newest_in_standard_support(today: Date) -> Option<&'static EksVersion> {
    calendar().iter().find(|entry| {
        matches!(
            support_on(entry.version, today),
            Some(Support::Standard { .. })
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Date {
        Date::parse(text).unwrap()
    }

    #[test]
    fn the_calendar_reads_newest_first_with_ordered_dates() {
        let calendar = calendar();
        assert_eq!(calendar[0].version, "1.35");
        assert!(
            calendar
                .windows(2)
                .all(|pair| pair[0].minor == pair[1].minor + 1)
        );
        for entry in calendar {
            assert!(entry.released < entry.end_of_standard_support, "{entry:?}");
            assert!(entry.end_of_standard_support < entry.end_of_extended_support);
        }
        let ids: Vec<&str> = calendar.iter().rev().map(|entry| entry.version).collect();
        assert_eq!(ids, crate::model::ids::KUBERNETES_VERSIONS);
    }

    #[test]
    fn support_follows_the_dates() {
        let today = day("2026-12-01");
        assert_eq!(
            support_on("1.35", today),
            Some(Support::Standard {
                ends: day("2027-03-27")
            })
        );
        assert_eq!(
            support_on("1.32", today),
            Some(Support::Extended {
                ends: day("2027-03-23"),
                standard_ended: day("2026-03-23")
            })
        );
        assert_eq!(
            support_on("1.31", today),
            Some(Support::Ended {
                ended: day("2026-11-26")
            })
        );
        // The last day of extended support is the day before the end date.
        assert!(matches!(
            support_on("1.31", day("2026-11-25")),
            Some(Support::Extended { .. })
        ));
        assert_eq!(support_on("1.36", today), Some(Support::NewerThanCalendar));
        assert_eq!(support_on("1.27", today), Some(Support::OlderThanCalendar));
        assert_eq!(support_on("1.3x", today), None);
        assert_eq!(support_on("2.1", today), None);
        assert_eq!(newest_in_standard_support(today).unwrap().version, "1.35");
        assert_eq!(
            newest_in_standard_support(day("2026-01-01"))
                .unwrap()
                .version,
            "1.34"
        );
    }

    #[test]
    fn days_since_the_epoch_are_calendar_days() {
        assert_eq!(Date::from_days_since_epoch(0), day("1970-01-01"));
        assert_eq!(Date::from_days_since_epoch(20_788), day("2026-12-01"));
        assert_eq!(Date::from_days_since_epoch(19_782), day("2024-02-29"));
        assert_eq!(day("2026-12-01").to_string(), "2026-12-01");
        assert_eq!(Date::parse("2026-13-01"), None);
        assert_eq!(Date::parse("26-1-1"), None);
    }
}
