/**
 * An email address that may wrap before its "@" when its box is narrow (a
 * table cell, a phone), never inside the name or the domain.
 */
export function EmailText({ email }: { email: string }) {
  const at = email.lastIndexOf("@");
  if (at <= 0) return <>{email}</>;
  return (
    <>
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </>
  );
}
