---------------------------- MODULE Counters ----------------------------
(* N counters that each count up to a bound: every combination of values
   is reachable, and a state has one successor per counter not at its
   bound. The first counter counts to First, the others to Max: the state
   space is (First + 1) * (Max + 1)^(N - 1). The twin of counters.star,
   for timing modex explore --check beside TLC (scripts/check-vs-tlc.sh). *)
EXTENDS Naturals

CONSTANTS N, Max, First

VARIABLE c

Top(i) == IF i = 1 THEN First ELSE Max

Init == c = [i \in 1..N |-> 0]

Inc(i) == /\ c[i] < Top(i)
          /\ c' = [c EXCEPT ![i] = @ + 1]

Next == \E i \in 1..N : Inc(i)

Inv == c[1] <= First
=============================================================================
