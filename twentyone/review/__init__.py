"""What a strategy did, decision by decision: the review of a round log and its replay (issue 26).

- ``logs``: a round log read back (``read_log``): its rules, seats and rounds, each with its cards and the
  cards seen before it;
- ``rounds``: each round replayed card by card (``replay_round``): every decision of every seat with what it
  could see then and what it could choose, and the steps a replay shows;
- ``pricing``: each decision valued by the exact analyser (``review_match``), off the cards the seat could
  have seen since the shuffle: the EV of every legal option, the one taken and the EV lost;
- ``costs``: priced decisions as plain values (``Priced``) and what is made of them: totals by situation
  and dealer card, the costliest decisions, EV lost per 100 hands, the note on bets and the true count;
- ``replay``: one self-contained HTML page that steps through a match, round by round and decision by
  decision;
- ``commands``: ``twentyone review LOG.jsonl [--seat N] [--json] [--html FILE]``.

Only ``pricing`` (and the command that uses it) loads the analyser's compiled core; the others are plain
Python, so the grade's report side can read priced decisions and draw replays without it.
"""
