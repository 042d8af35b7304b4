//! Work that one replica at a time does: polling Telegram (one consumer per bot token) and the
//! background jobs (summaries, purge, search by meaning), so that no job runs twice for the same
//! row. A replica leads a task while it holds its [`Leadership`].
//!
//! On SQLite one process has the file, so it always leads. On PostgreSQL leadership is a
//! session-level advisory lock held by a connection of its own: when the replica dies or loses
//! the server, the server ends the session and another replica takes the lock.

#[cfg(feature = "postgres")]
use sqlx::Connection;

use super::Result;
use super::{Backend, Store};

/// A task only one replica may do at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoleTask {
    /// Long polling Telegram for updates.
    Polling,
    /// The summarizer, the purge and the embedder.
    BackgroundJobs,
}

impl SoleTask {
    /// The task's advisory lock key (PostgreSQL): arbitrary, fixed, telemem's own.
    pub fn lock_key(self) -> i64 {
        match self {
            Self::Polling => 0x7465_6c65_6d00_0001,
            Self::BackgroundJobs => 0x7465_6c65_6d00_0002,
        }
    }
}

/// The right to do a [`SoleTask`], held until dropped.
#[derive(Debug)]
pub struct Leadership {
    /// The connection holding the advisory lock; `None` where the process is the only one.
    #[cfg(feature = "postgres")]
    pub(super) holder: Option<sqlx::PgConnection>,
}

impl Leadership {
    /// Leadership of a process that is alone with its database.
    #[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
    pub(super) fn alone() -> Self {
        Self {
            #[cfg(feature = "postgres")]
            holder: None,
        }
    }

    /// Whether this replica still leads: its lock's connection still answers.
    pub async fn is_held(&mut self) -> bool {
        #[cfg(feature = "postgres")]
        if let Some(holder) = &mut self.holder {
            return sqlx::Connection::ping(holder).await.is_ok();
        }
        true
    }
}

impl Store {
    /// Leadership of `task` when no other replica holds it now; `None` when one does. On SQLite
    /// one process has the file, so it always leads.
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    pub async fn try_lead(&self, task: SoleTask) -> Result<Option<Leadership>> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => Ok(Some(Leadership::alone())),
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let mut holder = db.pool.acquire().await?.detach();
                let locked = sqlx::query_scalar!(
                    r#"SELECT pg_try_advisory_lock($1) AS "locked!""#,
                    task.lock_key()
                )
                .fetch_one(&mut holder)
                .await?;
                if locked {
                    Ok(Some(Leadership {
                        holder: Some(holder),
                    }))
                } else {
                    let _ = holder.close().await;
                    Ok(None)
                }
            }
        }
    }
}
