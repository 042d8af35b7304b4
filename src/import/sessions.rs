//! Which session each imported message goes into: the rule of live chat (a message after more
//! than the idle gap of silence starts a new session), applied around the sessions the
//! conversation already has, so that sessions never overlap.
//!
//! A message within the gap of an existing session (inside it, or less than the gap before its
//! start or after its last activity) joins that session, the nearer one when two are that close;
//! the session widens to hold it. The other messages form new sessions, cut wherever more than
//! the gap separates two of them. A new session cannot reach across an existing one: every
//! message near an existing session joins it, so two consecutive new messages on either side of
//! one are more than the gap apart.

use crate::storage::{ImportMessage, ImportSession, SessionSpan};

/// Groups `messages` (oldest first) into sessions: some existing (`existing`, oldest first,
/// not overlapping), the others new. The result is oldest first by its first message.
pub fn plan(
    existing: &[SessionSpan],
    messages: Vec<ImportMessage>,
    gap_ms: i64,
) -> Vec<ImportSession> {
    let mut planned: Vec<ImportSession> = Vec::new();
    // Where each existing session's messages are in `planned`, once it has any.
    let mut joined: Vec<Option<usize>> = vec![None; existing.len()];
    // The new session the last message went into, and that message's time.
    let mut current: Option<(usize, i64)> = None;
    for message in messages {
        let time = message.created_at_ms;
        if let Some(nearest) = nearest_session(existing, time, gap_ms) {
            let place = *joined[nearest].get_or_insert_with(|| {
                planned.push(ImportSession {
                    existing_id: Some(existing[nearest].id),
                    messages: Vec::new(),
                });
                planned.len() - 1
            });
            planned[place].messages.push(message);
            current = None;
            continue;
        }
        match current {
            Some((place, last)) if time - last <= gap_ms => {
                planned[place].messages.push(message);
                current = Some((place, time));
            }
            _ => {
                planned.push(ImportSession {
                    existing_id: None,
                    messages: vec![message],
                });
                current = Some((planned.len() - 1, time));
            }
        }
    }
    planned
}

/// The index of the existing session nearest to `time` within `gap_ms`, if any.
fn nearest_session(existing: &[SessionSpan], time: i64, gap_ms: i64) -> Option<usize> {
    // Sessions do not overlap: the nearest are the last one starting at or before `time` and the
    // first one starting after it.
    let after = existing.partition_point(|span| span.started_at_ms <= time);
    after
        .checked_sub(1)
        .into_iter()
        .chain((after < existing.len()).then_some(after))
        .map(|index| (index, distance(&existing[index], time)))
        .filter(|(_, distance)| *distance <= gap_ms)
        .min_by_key(|(_, distance)| *distance)
        .map(|(index, _)| index)
}

fn distance(span: &SessionSpan, time: i64) -> i64 {
    if time < span.started_at_ms {
        span.started_at_ms - time
    } else {
        (time - span.last_activity_at_ms).max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Role;

    const GAP: i64 = 30;

    fn message(time: i64) -> ImportMessage {
        ImportMessage {
            role: Role::User,
            content: format!("at {time}"),
            created_at_ms: time,
            import_key: time.to_string(),
        }
    }

    fn span(id: i64, started: i64, last: i64) -> SessionSpan {
        SessionSpan {
            id,
            started_at_ms: started,
            last_activity_at_ms: last,
            closed: true,
        }
    }

    /// Each planned session as (existing id, times of its messages).
    fn shape(planned: &[ImportSession]) -> Vec<(Option<i64>, Vec<i64>)> {
        planned
            .iter()
            .map(|session| {
                let times = session.messages.iter().map(|m| m.created_at_ms).collect();
                (session.existing_id, times)
            })
            .collect()
    }

    #[test]
    fn more_than_the_gap_of_silence_starts_a_new_session() {
        let times = [0, 10, 40, 71, 80];
        let planned = plan(&[], times.map(message).to_vec(), GAP);
        assert_eq!(
            shape(&planned),
            [(None, vec![0, 10, 40]), (None, vec![71, 80])]
        );
    }

    #[test]
    fn messages_near_an_existing_session_join_it_and_the_rest_go_around_it() {
        // Stored sessions span 100–150 and 200–210: 165 is nearer the first, 185 the second.
        let existing = [span(1, 100, 150), span(2, 200, 210)];
        let times = [10, 60, 80, 120, 165, 185, 205, 300, 310];
        let planned = plan(&existing, times.map(message).to_vec(), GAP);
        assert_eq!(
            shape(&planned),
            [
                (None, vec![10]),
                (None, vec![60]),
                (Some(1), vec![80, 120, 165]),
                (Some(2), vec![185, 205]),
                (None, vec![300, 310]),
            ]
        );
    }
}
