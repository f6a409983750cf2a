//! PostgreSQL: added below.
