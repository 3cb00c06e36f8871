"""Tournament scheduling: who plays whom, in which seat, with which seed."""
