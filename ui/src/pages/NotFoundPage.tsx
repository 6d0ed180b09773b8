import { Link, useTitle } from '../router';

export default function NotFoundPage() {
  useTitle('Not found');
  return (
    <div>
      <h1>Page not found</h1>
      <p>There is no page here. <Link to="/">Go to the start page</Link>.</p>
    </div>
  );
}
