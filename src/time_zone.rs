//! A person's time zone ([`TimeZone`], an IANA name such as `Europe/Berlin`): how a name they
//! type is read, how a moment is shown to them, and what a time of day a model wrote means in
//! their zone. Times stay integer UTC milliseconds everywhere else; a zone only changes how they
//! are read and shown.

use chrono::{DateTime, FixedOffset, NaiveDateTime, Offset, TimeZone as _, Utc};
use chrono_tz::Tz;

/// An IANA time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeZone(Tz);

impl TimeZone {
    pub const UTC: Self = Self(Tz::UTC);

    /// The zone named `name`, in any letter case (`europe/berlin`), with spaces for underscores
    /// (`America/New York`); `None` for a name the IANA database does not have.
    pub fn parse(name: &str) -> Option<Self> {
        let wanted = name.trim().replace(' ', "_");
        if wanted.is_empty() {
            return None;
        }
        chrono_tz::TZ_VARIANTS
            .iter()
            .find(|zone| zone.name().eq_ignore_ascii_case(&wanted))
            .map(|zone| Self(*zone))
    }

    /// The zone's IANA name, as stored.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// `time_ms` on the person's clock, with weekday and zone: `Sat 06 Dec 2026 09:00 CET`.
    pub fn format(self, time_ms: i64) -> String {
        match Utc.timestamp_millis_opt(time_ms).single() {
            Some(time) => time
                .with_timezone(&self.0)
                .format("%a %d %b %Y %H:%M %Z")
                .to_string(),
            None => format!("{time_ms} ms"),
        }
    }

    /// `time_ms` as RFC 3339 with the zone's offset then: `2026-12-06T09:00:00+01:00`.
    pub fn rfc3339(self, time_ms: i64) -> String {
        match Utc.timestamp_millis_opt(time_ms).single() {
            Some(time) => time
                .with_timezone(&self.0)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            None => format!("{time_ms} ms"),
        }
    }

    /// The moment a model meant by `at` for a person in this zone. Models copy today's offset
    /// into a date on the other side of a daylight-saving change (`09:00+01:00` for a summer
    /// morning in Berlin, which is 10:00 there): when the offset written is not the zone's offset
    /// at that wall-clock time, the wall-clock time wins. Returns the moment in UTC ms and
    /// whether the offset was corrected.
    pub fn resolve(self, at: DateTime<FixedOffset>) -> (i64, bool) {
        let wall_clock: NaiveDateTime = at.naive_local();
        let Some(local) = self.0.from_local_datetime(&wall_clock).earliest() else {
            // A wall-clock time skipped by the change (02:30 on the spring night): as written.
            return (at.timestamp_millis(), false);
        };
        let corrected = local.offset().fix() != *at.offset();
        (local.timestamp_millis(), corrected)
    }
}

impl std::fmt::Display for TimeZone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(text).unwrap()
    }

    #[test]
    fn names_are_read_in_any_case_and_with_spaces() {
        assert_eq!(
            TimeZone::parse("europe/berlin").unwrap().name(),
            "Europe/Berlin"
        );
        assert_eq!(
            TimeZone::parse(" America/New York ").unwrap().name(),
            "America/New_York"
        );
        assert_eq!(TimeZone::parse("utc"), Some(TimeZone::UTC));
        assert_eq!(TimeZone::parse("Mars/Olympus"), None);
        assert_eq!(TimeZone::parse(""), None);
    }

    #[test]
    fn a_moment_is_shown_on_the_persons_clock() {
        let berlin = TimeZone::parse("Europe/Berlin").unwrap();
        // 2026-12-06 08:00 UTC is 09:00 in Berlin in winter.
        let time_ms = at("2026-12-06T08:00:00Z").timestamp_millis();
        assert_eq!(berlin.format(time_ms), "Sun 06 Dec 2026 09:00 CET");
        assert_eq!(berlin.rfc3339(time_ms), "2026-12-06T09:00:00+01:00");
    }

    #[test]
    fn an_offset_copied_across_a_daylight_saving_change_yields_to_the_wall_clock() {
        let berlin = TimeZone::parse("Europe/Berlin").unwrap();
        // Summer time starts on 2026-03-29: 09:00 that day is +02:00.
        let (time_ms, corrected) = berlin.resolve(at("2026-03-29T09:00:00+01:00"));
        assert!(corrected);
        assert_eq!(time_ms, at("2026-03-29T09:00:00+02:00").timestamp_millis());
        let (time_ms, corrected) = berlin.resolve(at("2026-03-28T09:00:00+01:00"));
        assert!(!corrected);
        assert_eq!(time_ms, at("2026-03-28T08:00:00Z").timestamp_millis());
    }

    #[test]
    fn a_wall_clock_time_the_change_skips_is_taken_as_written() {
        let berlin = TimeZone::parse("Europe/Berlin").unwrap();
        let written = at("2026-03-29T02:30:00+01:00");
        assert_eq!(berlin.resolve(written), (written.timestamp_millis(), false));
    }
}
