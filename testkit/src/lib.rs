//! Test fixtures for Loopscope (native only).
