// The MILP layer over CBC (being written: issue 3).
