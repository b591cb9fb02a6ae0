import { Fragment } from "react";

/**
 * An email address that may wrap when its box is narrow (a table cell, a
 * phone): before its "@" first, and else after a dot of the name or the
 * domain ("maria.jose." / "fernandez@…"), never inside a word.
 */
export function EmailText({ email }: { email: string }) {
  const at = email.lastIndexOf("@");
  if (at <= 0) return <>{email}</>;
  return (
    <>
      <BreaksAfterDots text={email.slice(0, at)} />
      <wbr />
      <BreaksAfterDots text={email.slice(at)} />
    </>
  );
}

function BreaksAfterDots({ text }: { text: string }) {
  const parts = text.split(/(?<=\.)(?=.)/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
