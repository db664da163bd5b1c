// install.h: makes the happens-before race detector the observer of every
// functional run in this process (engine/observer.h explains why the runners
// reach it through an installed factory). Call once, before any run.
#pragma once

namespace sk::verify {

void install_race_detector();

}  // namespace sk::verify
