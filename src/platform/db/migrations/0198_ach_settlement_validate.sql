-- The movement object type check 0197 widened for ACH file settlements, validated apart from the transaction that added it.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE bank_movements VALIDATE CONSTRAINT bank_movements_object_type_check;
