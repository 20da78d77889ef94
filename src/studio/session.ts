// Who is signed in (GET /studio/session), shared by the shell and the views.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api } from './api';

export interface Session { email: string; accountId: string; credits: number | null; local: boolean; expiresAt: string }

export const SessionContext = createContext<{ session: Session | null; refresh: () => Promise<void>; signOut: () => Promise<void> }>({
  session: null, refresh: async () => {}, signOut: async () => {},
});

export const useSession = () => useContext(SessionContext);

export async function fetchSession(): Promise<Session | null> {
  try {
    return await api.get<Session>('/studio/session');
  } catch {
    return null;
  }
}
