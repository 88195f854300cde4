//! Shadow play: the window a report holds, compared with a straight recording of the same ticks;
//! context radius; leave and grace; memory budgets; reports racing each other, play and shutdown.

#[path = "shadow/support.rs"]
mod support;

#[path = "shadow/window.rs"]
mod window;

#[path = "shadow/context.rs"]
mod context;

#[path = "shadow/lifecycle.rs"]
mod lifecycle;

#[path = "shadow/world.rs"]
mod world;

#[path = "shadow/keeping.rs"]
mod keeping;
