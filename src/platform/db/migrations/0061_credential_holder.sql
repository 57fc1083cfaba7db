-- The dashboard user a credential's secret was shown to (issue 33 point 12): a credential an admin
-- creates in the dashboard is that person's, so approvals tell the maker and the checker apart by
-- person, whichever credential or session each uses. NULL: issued by the operator (its own holder).
ALTER TABLE credentials ADD COLUMN issued_to_user uuid;
