import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { GqlError, Unauthenticated } from './gql';
import { initTheme } from './theme';
import './theme.css';

initTheme();

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // One retry for a network failure; the server's own answers (401, GraphQL errors) are final.
      retry: (count, error) => !(error instanceof Unauthenticated) && !(error instanceof GqlError) && count < 1,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
