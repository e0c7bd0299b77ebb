-- needs ACCESS EXCLUSIVE on a table the test keeps locked by an open transaction
ALTER TABLE held ADD COLUMN added integer;
