//! The movement trace CSV: [`import`] reads one into a compacted recording (`tickreel import`),
//! [`export`] writes a recording's entity poses as one (`tickreel export`). An export imports back
//! to the same poses, and exporting that again gives the same text.

pub mod export;
pub mod import;
